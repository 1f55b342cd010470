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
