# Early exits as Python writes them: `return` from inside a loop (a search, a validation that
# stops at the first bad element), and a loop's `else:` that runs when the loop did not break.
def find(xs, t):
    for i, x in enumerate(xs):
        if x == t:
            return i
    return -1


def first_long(words, n):
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if len(w) < n:
            continue
        return w.upper()
    print("none long enough")


def classify(xs):
    out = []
    for x in xs:
        if x < 0:
            return "negative found at " + str(len(out))
        out.append(x * 2)
    return out


print(find([1, 2, 3], 2), find([], 1), find([5, 5], 5))
print(first_long(["a", "bcd", "efgh"], 3), first_long(["a"], 3))
print(classify([1, 2, -1, 4]), classify([1, 2]))


def has_big(xs):
    for x in xs:
        if x > 5:
            print("big:", x)
            break
    else:
        print("none big in", xs)


has_big([1, 2, 3])
has_big([1, 9, 3])
n = 0
while n < 3:
    n += 1
else:
    print("counted to", n)
for p in range(2, 12):
    for d in range(2, p):
        if p % d == 0:
            break
    else:
        print(p, "is prime")


# `return` from a loop nested in another: every loop around it is left.
def find_cell(grid, target):
    for r, row in enumerate(grid):
        for c, x in enumerate(row):
            if x == target:
                print("found at", r, c)
                return (r, c)
        print("not in row", r)
    print("not found")
    return None


def first_pair(xs, total):
    i = 0
    while i < len(xs):
        for y in xs[i + 1:]:
            if xs[i] + y == total:
                return [xs[i], y]
        i += 1
    return []


def deep(n):
    for a in range(n):
        for b in range(n):
            for c in range(n):
                if a + b + c == 4 and a < b < c:
                    return a * 100 + b * 10 + c
    return -1


grid = [[1, 2], [3, 4], [5, 6]]
print(find_cell(grid, 4), find_cell(grid, 9), find_cell([], 1))
print(first_pair([3, 8, 1, 6], 7), first_pair([1, 2], 9))
print(deep(5), deep(2))
