# Comprehensions as scripts write them: dictionary comprehensions, several `for`s with their
# conditions, nested lists, `dict(...)` from keywords, pairs or another dictionary, and
# `enumerate` with a start.
words = ["b", "a", "c", "a"]
counts = {w: words.count(w) for w in words}
print(counts)
pairs = [(x, y) for x in range(3) for y in range(2) if x != y]
print(pairs)
grid = [[r * 3 + c for c in range(3)] for r in range(2)]
print(grid, [v for row in grid for v in row if v % 2 == 0])
print(dict(a=1, b=2), dict([("x", 1), ("x", 2), ("y", 3)]), dict(), dict(counts))
for i, w in enumerate(words, start=1):
    print(i, w)
print(list(enumerate("ab", 10)))
inv = {v: k for k, v in counts.items()}
print(inv, {k: [n] * n for k, n in sorted(counts.items()) if n > 1})
