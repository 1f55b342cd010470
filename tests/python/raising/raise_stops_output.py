# `raise` in internal code, a raise in an `else` block: the output stops where CPython stops.
from opal import unordered


@unordered
def fetch(x):
    if x == 3:
        raise ValueError("three is not allowed")
    return x * 10


def check(n):
    if n < 0:
        raise ValueError(f"negative: {n}")
    return n


total = 0
for i in range(5):
    try:
        v = fetch(i)
    except ValueError as e:
        print("skipped:", e)
        v = 0
    else:
        if v > 30:
            raise RuntimeError("too big")
    total += v
print(total, check(2))
print(check(-1))
print("not reached")
