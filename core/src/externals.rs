//! Declarations of the standard externals (LANGUAGE.md §5): what the checker, hover and
//! completion know about them. Their behaviour is in `machine::host`.

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
}

const fn ext(name: &'static str, sig: &'static str, doc: &'static str, kind: ExtKind, arity: Option<usize>) -> ExtDecl {
    ExtDecl { name, sig, doc, kind, arity, results: &[], needs_exec: false }
}

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
    ext("len", "len s -> int", "Number of characters in a string.", Pure, None),
    ext("to_str", "to_str v -> string", "Any primitive as a string (strings unchanged).", Pure, None),
    ext("parse_int", "parse_int s -> int", "Parses a decimal integer (fails if it is not one).", Pure, None),
    ext("split_lines", "split_lines s -> list of strings", "The lines of a string, as a Church list.", Pure, None),
    ext("split_words", "split_words s -> list of strings", "The whitespace-separated words of a string, as a Church list.", Pure, None),
    ext("print", "print (handle, value) -> handle", "Writes value to the handle (strings raw, other values as literals, one per line); returns the handle to thread. `print v` alone writes to stdout and returns ().", Pure, None),
    ext("sleep", "sleep ms -> ()", "Waits ms milliseconds without blocking anything else.", Async, None),
    ExtDecl { results: &["true", "false"], ..ext("coin", "coin () -> bool", "A fair coin: resolves to the Church boolean true or false.", Nondet, Some(0)) },
    ext("now", "now () -> float", "Milliseconds since the run started.", Pure, Some(0)),
    ext("fork", "fork h -> (h1, h2)", "Splits a handle into two that may be used concurrently (paper §4.3).", Pure, None),
    ext("join", "join (h1, h2) -> h", "Joins two handles: what comes after waits for both.", Pure, Some(2)),
    ext("llm", "llm prompt -> list of strings", "Streams a chat completion for prompt from an OpenAI-compatible endpoint (OPAL_LLM_BASE_URL, OPAL_LLM_API_KEY, OPAL_LLM_MODEL).", Streaming, None),
    ext("llm_chat", "llm_chat messages -> list of strings", "Streams a chat completion for a list of messages.", Streaming, None),
    ExtDecl { needs_exec: true, ..ext("create_process", "create_process cmd -> (stdin, stdout)", "Starts a process (no shell); returns its stdin and stdout descriptors. Needs --allow-exec.", Async, None) },
    ExtDecl { needs_exec: true, ..ext("fd_write_and_close", "fd_write_and_close (fd, s) -> ()", "Writes s to a descriptor and closes it. Needs --allow-exec.", Async, Some(2)) },
    ExtDecl { needs_exec: true, ..ext("fd_read_and_close", "fd_read_and_close fd -> list of strings", "Streams a descriptor until end of file. Needs --allow-exec.", Streaming, None) },
];

/// Handles in scope in every program.
pub static HANDLES: &[(&str, &str)] = &[("stdout", "The program's standard output handle."), ("stderr", "The program's standard error handle.")];

pub fn standard(name: &str) -> Option<&'static ExtDecl> {
    STANDARD.iter().find(|e| e.name == name)
}

pub fn is_handle(name: &str) -> bool {
    HANDLES.iter().any(|(h, _)| *h == name)
}

/// `stdout`, or a handle made from it by `fork` (`stdout_1`, `stdout_1_2`): the root's name.
pub fn handle_root(name: &str) -> Option<&'static str> {
    let root = name.split('_').next().unwrap_or(name);
    let rest = &name[root.len()..];
    let ok = rest.split('_').skip(1).all(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
    HANDLES.iter().find(|(h, _)| *h == root).filter(|_| ok).map(|(h, _)| *h)
}
