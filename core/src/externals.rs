//! The one table of the standard externals (LANGUAGE.md §5): what the checker, hover and
//! completion know about them, and which implementation runs each: pure ones in
//! `machine::run::pure` (library functions on data in `machine::data`), the others in the
//! runner (`sleep`, `coin`) or in `opal-live` (`llm`, processes).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtKind {
    /// Runs synchronously at dispatch (still recorded as dispatch + resolve).
    Pure,
    /// Runs on tokio; resolves when its result arrives.
    Async,
    /// Resolves to partial Church lists as chunks arrive.
    Streaming,
    /// Has a finite set of possible results; one is chosen at resolution.
    Nondet,
}

impl ExtKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ExtKind::Pure => "pure",
            ExtKind::Async => "async",
            ExtKind::Streaming => "streaming",
            ExtKind::Nondet => "nondeterministic",
        }
    }
}

#[derive(Clone, Debug)]
pub struct ExtDecl {
    pub name: &'static str,
    pub sig: &'static str,
    pub doc: &'static str,
    pub kind: ExtKind,
    /// `Some(n)`: the argument is an n-tuple (`Some(0)`: unit). `None`: one plain value.
    pub arity: Option<usize>,
    /// The finite set of results, as OPAL source, when there is one.
    pub results: &'static [&'static str],
    /// Only available with `--allow-exec`.
    pub needs_exec: bool,
    /// A library function on data (`len`, `sorted`, `json_dump`, …): its argument is read back
    /// as data (lists, booleans, dictionaries) and `machine::data::eval` computes it.
    pub data: bool,
    /// Its ordering class when the program does not declare an `extern` of that name (a
    /// file read is readonly, a write sequential: PopPy §4.2); `None` is unordered.
    pub order: Option<Order>,
}

const fn ext(
    name: &'static str,
    sig: &'static str,
    doc: &'static str,
    kind: ExtKind,
    arity: Option<usize>,
) -> ExtDecl {
    ExtDecl {
        name,
        sig,
        doc,
        kind,
        arity,
        results: &[],
        needs_exec: false,
        data: false,
        order: None,
    }
}

/// A live external with its ordering class.
const fn ordered(
    name: &'static str,
    sig: &'static str,
    doc: &'static str,
    order: Order,
    arity: Option<usize>,
) -> ExtDecl {
    ExtDecl {
        order: Some(order),
        ..ext(name, sig, doc, Async, arity)
    }
}

/// A pure library function on data (`ExtDecl::data`).
const fn lib(
    name: &'static str,
    sig: &'static str,
    doc: &'static str,
    arity: Option<usize>,
) -> ExtDecl {
    ExtDecl {
        data: true,
        ..ext(name, sig, doc, Pure, arity)
    }
}

use crate::syntax::ast::Order;
use ExtKind::*;

pub static STANDARD: &[ExtDecl] = &[
    ext("add", "add (a, b) -> number | string", "Adds two numbers, or concatenates two strings.", Pure, Some(2)),
    ext("sub", "sub (a, b) -> number", "Subtracts b from a.", Pure, Some(2)),
    ext("mul", "mul (a, b) -> number", "Multiplies two numbers.", Pure, Some(2)),
    ext("div", "div (a, b) -> number", "Divides a by b (integer division for integers; fails on division by zero).", Pure, Some(2)),
    ext("mod", "mod (a, b) -> int", "Remainder of a divided by b (fails on zero).", Pure, Some(2)),
    ext("neg", "neg a -> number", "Negates a number.", Pure, None),
    ext("eq", "eq (a, b) -> bool", "Church boolean: a equals b.", Pure, Some(2)),
    ext("ne", "ne (a, b) -> bool", "Church boolean: a differs from b.", Pure, Some(2)),
    ext("lt", "lt (a, b) -> bool", "Church boolean: a < b.", Pure, Some(2)),
    ext("le", "le (a, b) -> bool", "Church boolean: a <= b.", Pure, Some(2)),
    ext("gt", "gt (a, b) -> bool", "Church boolean: a > b.", Pure, Some(2)),
    ext("ge", "ge (a, b) -> bool", "Church boolean: a >= b.", Pure, Some(2)),
    ext("concat_str", "concat_str (a, b) -> string", "Concatenates two strings.", Pure, Some(2)),
    lib("len", "len x -> int", "Number of characters of a string, elements of a list or tuple, or entries of a dictionary.", None),
    lib("to_str", "to_str v -> string", "Any value as text: strings unchanged, others as literals (`[1, \"a\"]`, `true`, `{\"k\": 2}`).", None),
    ext("parse_int", "parse_int s -> int", "Parses a decimal integer (fails if it is not one).", Pure, None),
    ext("split_lines", "split_lines s -> list of strings", "The lines of a string, as a Church list.", Pure, None),
    ext("split_words", "split_words s -> list of strings", "The whitespace-separated words of a string, as a Church list.", Pure, None),
    ext("print", "print (handle, value) -> handle", "Writes a value (strings raw, other values as literals, one per line). `print v` writes to stdout and is sequential: prints come out in program order. `print (&h, v)` writes to handle h and returns it to thread, ordered by h alone.", Pure, None),
    ext("print_raw", "print_raw (handle, value) -> handle", "Writes a value as `print` does, without ending the line (a streamed answer token by token, Python's `print(x, end=\"\")`). Ordered with the prints.", Pure, None),
    ext("sleep", "sleep ms -> ()", "Waits ms milliseconds without blocking anything else.", Async, None),
    ExtDecl { results: &["true", "false"], ..ext("coin", "coin () -> bool", "A fair coin: resolves to the Church boolean true or false.", Nondet, Some(0)) },
    ExtDecl { order: Some(Order::Sequential), ..ext("now", "now () -> float", "Milliseconds since the run started, read in program order with the other sequential calls (so `t1 := now (); …; t2 := now ()` measures what ran between).", Pure, Some(0)) },
    ext("fork", "fork h -> (h1, h2)", "Splits a handle into two that may be used concurrently (paper §4.3).", Pure, None),
    ext("join", "join (h1, h2) -> h", "Joins two handles: what comes after waits for both.", Pure, Some(2)),
    ext("llm", "llm prompt | (prompt, options) -> list of strings", "Streams a chat completion for prompt from an OpenAI-compatible endpoint (OPAL_LLM_BASE_URL, OPAL_LLM_API_KEY, OPAL_LLM_MODEL). Options: a dictionary with model, temperature, max_tokens, stop, json, top_p, seed.", Streaming, None),
    ext("llm_chat", "llm_chat messages | (messages, options) -> list of strings", "Streams a chat completion for a list of (role, content) messages; options as for `llm`.", Streaming, None),
    lib("range", "range n -> list of ints", "The integers 0, 1, …, n-1; `range (a, b)` from a to b-1, `range (a, b, step)` by step.", None),
    lib("contains", "contains (collection, x) -> bool", "`x in c`: x is an element of a list or tuple, a key of a dictionary, or a substring of a string.", Some(2)),
    lib("index", "index (collection, i) -> value", "`c[i]`: element i of a list, tuple or string (negative counts from the end), or a dictionary's value for key i; fails when it is not there.", Some(2)),
    lib("get", "get (dict, key, default) -> value", "The dictionary's value for key, or default when the key is not there.", Some(3)),
    lib("keys", "keys dict -> list", "A dictionary's keys, in insertion order.", None),
    lib("values", "values dict -> list", "A dictionary's values, in insertion order.", None),
    lib("items", "items dict -> list of (key, value)", "A dictionary's entries as pairs, in insertion order.", None),
    lib("sum", "sum l -> number", "The sum of a list of numbers.", None),
    lib("max", "max l -> value", "The largest element of a list (or of a tuple `max (a, b)`); the first of equals.", None),
    lib("min", "min l -> value", "The smallest element of a list (or of a tuple `min (a, b)`); the first of equals.", None),
    lib("sorted", "sorted l -> list", "The elements in ascending order (numbers, strings, tuples and lists compare as in Python).", None),
    lib("reversed", "reversed l -> list", "The elements in reverse order.", None),
    lib("topk", "topk (items, scores, k) -> list", "The k items with the highest scores, highest first; earlier items first on ties.", Some(3)),
    lib("order_by", "order_by (items, keys) -> list", "The items sorted by their keys, ascending and stable (what `sort_by` uses).", Some(2)),
    lib("zip", "zip (a, b, …) -> list of tuples", "Tuples of the elements of two or more lists at the same position, as long as the shortest.", None),
    lib("enumerate", "enumerate l -> list of (i, x)", "Each element with its position from 0.", None),
    lib("json_parse", "json_parse s -> value", "Parses JSON text: objects become dictionaries, arrays lists, null ().", None),
    lib("json_dump", "json_dump v -> string", "Writes a value as JSON text: dictionaries as objects, lists and tuples as arrays, () as null.", None),
    // Python's meaning, for the Python front end (docs/python.md); OPAL programs may call them.
    lib("py_str", "py_str v -> string", "Python's `str(v)`: a string unchanged, anything else as `py_repr`.", None),
    lib("py_repr", "py_repr v -> string", "Python's `repr(v)`: `['a', 1]`, `{'k': True}`, `0.30000000000000004`, `None` for ().", None),
    lib("py_mul", "py_mul (a, b) -> value", "Python's `a * b`: numbers multiplied, a string or list repeated.", Some(2)),
    lib("py_method", "py_method (receiver, name, arguments) -> value", "Python's `receiver.name(*arguments)` for the methods of `str`, `list` and `dict` that do not change the receiver.", Some(3)),
    lib("py_slice", "py_slice (sequence, start, stop, step) -> value", "Python's `sequence[start:stop:step]`; `()` for a bound left out.", Some(4)),
    lib("py_list", "py_list v -> list", "Python's `list(v)`: a string's characters, a dictionary's keys, a set's elements (in CPython's order), a list or tuple's items.", None),
    lib("py_any", "py_any l -> bool", "Python's `any(l)`.", None),
    lib("py_all", "py_all l -> bool", "Python's `all(l)`.", None),
    lib("py_round", "py_round x | (x, n) -> number", "Python's `round`: half to even to an int, or to n digits.", None),
    lib("py_tuple", "py_tuple v -> tuple", "Python's `tuple(v)`.", None),
    lib("py_flatten", "py_flatten lists -> list", "The elements of each list in turn (a comprehension with several `for`s).", None),
    lib("py_enumerate", "py_enumerate (l, start) -> list of (i, x)", "Python's `enumerate(l, start)`: pairs numbered from start.", Some(2)),
    lib("py_quiet", "py_quiet v -> string", "The empty string, once v has a value: `print_raw (py_quiet v)` orders the output after v (a `try` whose exception no clause catches stops the output there).", None),
    lib("py_caught", "py_caught v -> bool", "Is v what a catching call (`try.f`, Python's `try`) returns when the function raised?", None),
    lib("py_exc_check", "py_exc_check (v, classes) -> v", "v, unless it is an exception none of the classes catches: then the run fails with it.", Some(2)),
    lib("py_exc_matches", "py_exc_matches (exception, classes) -> bool", "Does an `except` naming these classes catch the exception (one of them is in its MRO)?", Some(2)),
    lib("py_exc_message", "py_exc_message exception -> string", "The exception's message: what Python's `str(e)` gives.", None),
    lib("py_try", "py_try (name, arguments) -> value", "The library function name (index, py_int, py_float, py_truediv, py_floordiv, py_mod) on the arguments, or the exception Python raises there (KeyError, IndexError, ValueError, ZeroDivisionError) as a catching call returns it: a `try` body's `d[k]`.", Some(2)),
    lib("py_exc_new", "py_exc_new (class, classes, message) -> exception", "The exception a `raise class(message)` in a `try` body raises, its classes (its MRO) given, as a catching call returns it.", Some(3)),
    lib("py_exc_raise", "py_exc_raise exception -> never", "Fails the run with the exception (an exception no `except` caught, or a bare `raise`).", None),
    lib("py_unbound", "py_unbound name -> marker", "What a Python name bound only inside a block holds before its first assignment: a value every library function refuses with Python's NameError.", None),
    lib("py_mutated", "py_mutated (receiver, name, arguments) -> (receiver, result)", "Python's `receiver.name(*arguments)` for a method that changes its receiver (`pop`, `insert`, `remove`, `sort`, `update`, `setdefault`, …): the changed receiver and the method's result.", None),
    lib("py_dict", "py_dict pairs -> dict", "Python's `dict(pairs)`: a dictionary from a list of (key, value) pairs (a later key replaces an earlier one, keeping its place), a copy of a dictionary, or `{}` from `()`.", None),
    lib("py_set", "py_set v -> set", "Python's `set(v)`: the distinct elements of a list, tuple, string, dictionary (its keys) or set, `set()` from `()`; printed and walked in CPython's order.", None),
    lib("py_type_name", "py_type_name v -> string", "Python's `type(v).__name__`: `int`, `str`, `list`, `NoneType`, an exception's class, a worker object's class.", None),
    lib("py_bitor", "py_bitor (a, b) -> value", "Python's `a | b`: the union of two sets, or bitwise or of integers.", Some(2)),
    lib("py_bitand", "py_bitand (a, b) -> value", "Python's `a & b`: the intersection of two sets, or bitwise and of integers.", Some(2)),
    lib("py_bitxor", "py_bitxor (a, b) -> value", "Python's `a ^ b`: the symmetric difference of two sets, or bitwise exclusive or of integers.", Some(2)),
    lib("py_isinstance", "py_isinstance (v, type name) -> bool", "Python's `isinstance(v, t)` for the built-in types int, float, str, bool, list, dict, set and tuple.", Some(2)),
    lib("py_setitem", "py_setitem (collection, key, value) -> collection", "A new dictionary (or list) with the item set: what `d[k] = v` binds to `d` in a Python script.", Some(3)),
    lib("py_truediv", "py_truediv (a, b) -> float", "Python's `a / b`: always a float; dividing by zero fails.", Some(2)),
    lib("py_floordiv", "py_floordiv (a, b) -> number", "Python's `a // b`: rounded down.", Some(2)),
    lib("py_mod", "py_mod (a, b) -> number", "Python's `a % b`: the remainder takes the divisor's sign.", Some(2)),
    lib("py_pow", "py_pow (a, b) -> number", "Python's `a ** b`.", Some(2)),
    lib("py_int", "py_int v -> int", "Python's `int(v)` of a number, boolean or string.", None),
    lib("py_float", "py_float v -> float", "Python's `float(v)` of a number, boolean or string.", None),
    lib("py_abs", "py_abs x -> number", "Python's `abs(x)`.", None),
    lib("py_bool", "py_bool v -> bool", "Python's `bool(v)`: empty strings and collections, zero and None are false.", None),
    lib("py_format", "py_format (v, spec) -> string", "Python's `format(v, spec)` for `[[fill]align][+][width][,][.precision][f|e|%|d|s]`.", Some(2)),
    lib("error", "error message -> never", "Fails with the message: the call is a failed task, and the run ends with it (exit 3).", None),
    ordered("read_file", "read_file path -> string", "The text of a UTF-8 file (a relative path is from the working directory). Readonly: overlaps other reads, never a write before it.", Order::Readonly, None),
    ordered("write_file", "write_file (path, text) -> ()", "Writes text to a file, replacing what it held (creating it). Sequential: in program order with the other writes and prints.", Order::Sequential, Some(2)),
    ordered("append_file", "append_file (path, text) -> ()", "Adds text at the end of a file (creating it). Sequential.", Order::Sequential, Some(2)),
    ordered("list_dir", "list_dir path -> list of strings", "The names in a directory, sorted. Readonly.", Order::Readonly, None),
    ordered("getenv", "getenv name | (name, default) -> string", "An environment variable's value; `()` (or default) when it is not set. Readonly.", Order::Readonly, None),
    ordered("http_get", "http_get url | (url, headers) -> string", "The body of a GET request (headers a dictionary); fails on an HTTP error, retrying 429 and 5xx as `llm` does. Readonly.", Order::Readonly, None),
    ordered("http_post", "http_post (url, body) | (url, body, headers) -> string", "The body of a POST request: a string body is sent as is, any other value as JSON. Fails on an HTTP error; never retried. Sequential.", Order::Sequential, None),
    ExtDecl { needs_exec: true, ..ext("create_process", "create_process cmd -> (stdin, stdout)", "Starts a process (no shell); returns its stdin and stdout descriptors. Needs --allow-exec.", Async, None) },
    ExtDecl { needs_exec: true, ..ext("fd_write_and_close", "fd_write_and_close (fd, s) -> ()", "Writes s to a descriptor and closes it. Needs --allow-exec.", Async, Some(2)) },
    ExtDecl { needs_exec: true, ..ext("fd_read_and_close", "fd_read_and_close fd -> list of strings", "Streams a descriptor until end of file. Needs --allow-exec.", Streaming, None) },
];

/// Handles in scope in every program.
pub static HANDLES: &[(&str, &str)] = &[
    ("stdout", "The program's standard output handle."),
    ("stderr", "The program's standard error handle."),
];

pub fn standard(name: &str) -> Option<&'static ExtDecl> {
    STANDARD.iter().find(|e| e.name == name)
}

/// Is `name` one of the externals that write to a handle (`print`, `print_raw`)? They share one
/// order: stdout has one order, whichever of them writes.
pub fn is_printer(name: &str) -> bool {
    name == "print" || name == "print_raw"
}

pub fn is_handle(name: &str) -> bool {
    HANDLES.iter().any(|(h, _)| *h == name)
}

/// The descriptors `create_process` returns for its `n`th child: `proc{n}_stdin` and
/// `proc{n}_stdout`. They are names a program could write, so a result that holds them prints
/// as OPAL source that reads back to the same handles (a trace's `result`).
pub fn process_handles(n: u32) -> (String, String) {
    (format!("proc{n}_stdin"), format!("proc{n}_stdout"))
}

/// Is `name` a descriptor made by `create_process` (`proc1_stdin`, `proc12_stdout`)?
pub fn is_process_handle(name: &str) -> bool {
    let Some((n, end)) = name.strip_prefix("proc").and_then(|r| r.split_once('_')) else {
        return false;
    };
    let number = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0');
    number && (end == "stdin" || end == "stdout")
}

/// A name that stands for a handle primitive where nothing binds it: a handle made by `fork`
/// (`stdout_1`) or by `create_process` (`proc1_stdin`), as results, world files and traces
/// write them.
pub fn is_handle_literal(name: &str) -> bool {
    handle_root(name).is_some() || is_process_handle(name)
}

/// `stdout`, or a handle made from it by `fork` (`stdout_1`, `stdout_1_2`): the root's name.
pub fn handle_root(name: &str) -> Option<&'static str> {
    let root = name.split('_').next().unwrap_or(name);
    let rest = &name[root.len()..];
    let ok = rest
        .split('_')
        .skip(1)
        .all(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
    HANDLES
        .iter()
        .find(|(h, _)| *h == root)
        .filter(|_| ok)
        .map(|(h, _)| *h)
}

#[cfg(test)]
mod tests {
    /// The editors' word lists come from the TextMate grammar's generator: every standard
    /// external a program may call by name is in it (the Python front end's `py_*` helpers
    /// are not meant to be written).
    #[test]
    fn the_grammar_names_every_standard_external() {
        let gen = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../vscode-extension/syntaxes/gen.py"
        );
        let text = std::fs::read_to_string(gen).expect("gen.py");
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("EXTERNALS = \""))
            .expect("the EXTERNALS line");
        let words: Vec<&str> = line.trim_end_matches('"').split('|').collect();
        let missing: Vec<&str> = super::STANDARD
            .iter()
            .map(|e| e.name)
            .filter(|n| !n.starts_with("py_") && !words.contains(n))
            .collect();
        assert!(missing.is_empty(), "add to gen.py's EXTERNALS: {missing:?}");
    }
}
