# `*args` and `**kwargs`: helpers that join any number of parts, log with extra fields, and an
# external taking any number of arguments (it runs in CPython, which gets them as written).
from opal import unordered


@unordered
def ask(*parts):
    return "|".join(parts) + f" ({len(parts)} parts)"


def join_all(*parts):
    return " ".join(parts)


def describe(name, *tags, **extra):
    return f"{name} {len(tags)} {list(tags)} {sorted(extra.items())} {len(extra)}"


def log(msg, level="info", **fields):
    line = f"[{level}] {msg}"
    for k, v in fields.items():
        line += f" {k}={v}"
    return line


def total(*xs):
    s = 0
    for x in xs:
        s += x
    return s


def shout(*words):
    return [w.upper() for w in words]


def biggest(first, *rest):
    return max(first, max(rest)) if rest else first


print(shout("hi", "there"), biggest(3, 9, 4), biggest(7), sum((1, 2)))
print(join_all("a", "b", "c"))
print(repr(join_all()))
print(describe("x"))
print(describe("x", 1))
print(describe("x", 1, 2, k=1, j=2))
print(log("started", user="ann", n=3))
print(log("oops", "error"))
print(log("done", level="debug"))
print(total(1, 2, 3), total(), total(5))
print(ask("p", "q"))
print(ask("solo"))
print(ask())
