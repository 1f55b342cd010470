//! The lowering on small scripts: what compiles, and what is refused at which line.

use crate::compile_file;

fn errors(src: &str) -> Vec<String> {
    let c = compile_file("t.py", src, None);
    c.diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{} {}", d.code, d.message))
        .collect()
}

#[test]
fn a_script_of_the_fragment_compiles() {
    let src = "from opal import unordered\n\n@unordered\ndef fetch(x):\n    return x\n\n\
def pick(xs, n):\n    if n == 0:\n        return xs[0]\n    total = 0\n    for x in xs:\n        \
total += x\n    return total\n\nif __name__ == \"__main__\":\n    a, b = 1, 2.5\n    \
print(pick([1, 2], a), b / 2, f\"{a:>3}|{b!r}\", sep=\", \")\n";
    assert_eq!(errors(src), Vec::<String>::new());
}

#[test]
fn what_is_outside_the_fragment_is_refused_where_it_is() {
    for (src, what) in [
        ("class A:\n    pass\n", "a class"),
        (
            "from opal import unordered\n@unordered\ndef f(x):\n    return x\n\
             try:\n    print(f(1))\nexcept E:\n    pass\n",
            "a call that may raise inside an expression",
        ),
        (
            "def g():\n    try:\n        return 1\n    finally:\n        print(2)\n",
            "`break`, `continue` or `return` in a `try` that has a `finally` block",
        ),
        (
            "xs = [1]\nys = xs\nxs += [2]\n",
            "`xs += …` on a collection that is shared with another holder on line 2",
        ),
        (
            "def f(s: set):\n    s |= {1}\n",
            "`s |= …` on a collection that is shared",
        ),
        ("d = {}\nprint(d.keys())\n", "`.keys()` outside"),
        (
            "xs = []\nys = xs\nxs.append(1)\n",
            "`xs` is shared with another holder on line 2",
        ),
        (
            "def f(xs):\n    xs.append(1)\n    return xs\n",
            "`xs.append(…)` where",
        ),
        (
            "xs = [1]\nfor x in xs:\n    xs.append(x)\n",
            "is walked by a `for` loop",
        ),
        (
            "xs = [1]\nprint(len(xs), xs.pop())\n",
            "`.pop(…)` inside an expression, which changes its receiver",
        ),
        (
            "xs = [1]\nys = xs\nxs.pop()\n",
            "`xs.pop(…)` where `xs` is shared with another holder on line 2",
        ),
        ("with open(\"f\") as f:\n    pass\n", "`with`"),
        (
            "d = {}\ne = d\nd[\"k\"] = 1\n",
            "assigning to an item of `d`, which is shared with another holder on line 2",
        ),
        (
            "def f(x=[]):\n    return x\n",
            "a parameter default that is not a constant",
        ),
        (
            "xs = []\ndef f():\n    return xs\nys = f()\nxs.append(1)\n",
            "`xs` is shared with another holder on line 3",
        ),
    ] {
        let e = errors(src);
        assert!(
            e.iter().any(|m| m.starts_with("E0401") && m.contains(what)),
            "{src}: {e:?}"
        );
    }
    let e = errors("def f(:\n");
    assert!(e.iter().any(|m| m.starts_with("E0400")), "{e:?}");
}

/// Jumps in only some paths of a branch copy the code after them into both ways: a loop body
/// of 40 of them would be 2^40 statements. It is refused at a line, promptly, and a body of a
/// few is not.
#[test]
fn jumps_that_would_copy_the_rest_without_end_are_refused() {
    let body = |n: usize| {
        let mut s = String::from("total = 0\nfor x in range(30):\n");
        for i in 0..n {
            s.push_str(&format!(
                "    if x > {i}:\n        if x == {}:\n            continue\n    total += {i}\n",
                i + 100
            ));
        }
        s + "print(total)\n"
    };
    assert_eq!(errors(&body(4)), Vec::<String>::new());
    let e = errors(&body(40));
    assert!(
        e.iter()
            .any(|m| m.starts_with("E0401") && m.contains("this many `if`s")),
        "{e:?}"
    );
}

/// A `try` in a loop that breaks elsewhere, whose clause only re-raises, keeps its `finally`
/// (only a `try` that itself jumps out is refused with one); an unknown class raised in a
/// `try` body is refused once.
#[test]
fn a_try_that_only_raises_keeps_its_finally_and_an_unknown_raise_is_refused_once() {
    let src = [
        "from opal import unordered\n\n@unordered\ndef f(x):\n    return x\n\nout = []\n",
        "for x in range(4):\n    if x == 3:\n        break\n    try:\n        y = f(x)\n",
        "    except ValueError:\n        raise\n    finally:\n        out.append(x)\nprint(out)\n",
    ]
    .concat();
    assert_eq!(errors(&src), Vec::<String>::new());
    let e = errors("try:\n    raise Weird(\"x\")\nexcept ValueError:\n    pass\n");
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("`raise Weird` in a `try` body"), "{e:?}");
}
