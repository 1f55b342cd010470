# Recursive functions: factorial, Fibonacci with memo passed along, a tree walk over nested
# lists, and a binary search.
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def depth(tree):
    if not isinstance(tree, list):
        return 0
    if not tree:
        return 1
    return 1 + max([depth(t) for t in tree])


def flatten(tree):
    if not isinstance(tree, list):
        return [tree]
    out = []
    for t in tree:
        out = out + flatten(t)
    return out


def search(xs, target, lo, hi):
    if lo >= hi:
        return -1
    mid = (lo + hi) // 2
    if xs[mid] == target:
        return mid
    if xs[mid] < target:
        return search(xs, target, mid + 1, hi)
    return search(xs, target, lo, mid)


print(fact(10), fact(20), [fib(i) for i in range(12)])
tree = [1, [2, [3, [4]], 5], [[6]]]
print(depth(tree), flatten(tree))
xs = list(range(0, 100, 7))
print(search(xs, 49, 0, len(xs)), search(xs, 50, 0, len(xs)))
