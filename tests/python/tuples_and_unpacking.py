# Tuples and unpacking: swaps, multiple return values, nested unpacking in loops, zip and
# enumerate, tuples as dictionary keys, and their printing.
def min_max(xs):
    return min(xs), max(xs)


a, b = 1, 2
a, b = b, a
print(a, b)
lo, hi = min_max([5, 3, 9, 1])
print(lo, hi, min_max([7]))
points = [(0, 0), (3, 4), (1, 1)]
for i, (x, y) in enumerate(points):
    print(i, x, y, (x * x + y * y) ** 0.5)
grid = {}
for x, y in points:
    grid[(x, y)] = x + y
print(grid, grid[(3, 4)])
pairs = list(zip("abc", [1, 2, 3]))
print(pairs, (1,), tuple([1, 2]), len((1, 2, 3)))
first, second = pairs[0]
print(first, second, pairs[-1][1])
names, ages, towns = ["Ana", "Bo", "Cy"], [31, 27], ("Suva", "Apia", "Hilo")
for name, age, town in zip(names, ages, towns):
    print(f"{name} ({age}) in {town}")
print(list(zip(names, ages, towns, "xyz")), [n + t for n, _, t in zip(names, ages, towns)])
