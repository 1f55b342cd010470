# Dictionary keys are equal when Python's `==` says so: 1, 1.0 and True are one key, the
# first key written stays and the last value wins; integers compare exactly.
counts = {1: "int", 2: "two"}
counts[1.0] = "float"
print(counts)
counts[True] = "bool"
print(counts)
print(counts[1], counts[1.0], counts[True])

mixed = {1: "a", 1.0: "b", True: "c", (1, 2): "t", (1.0, 2): "u"}
print(mixed, len(mixed))
written_twice = {"k": 1, "k": 2}
print(written_twice)
n = 3
computed = {n: "n", 3: "three", n * 1.0: "float"}
print(computed)

pairs = dict([(0, "zero"), (0.0, "fz"), (False, "no")])
print(pairs)

cache = {}
cache.setdefault(2, "x")
v = cache.setdefault(2.0, "y")
print(v, cache)
v = cache.pop(2.0)
print(v, cache)

merged = {3: 1}
merged.update({3.0: 2})
print(merged, 3.0 in merged, 3 in merged, True in {1: 0})

doubled = {x: x * 2 for x in [1, 1.0, 2]}
print(doubled)

print(True == 1, 1 == 1.0, (1, True) == (1.0, 1), [True] == [1], {True: 1} == {1: 1})
print(2**53 + 1 == 2**53, 9007199254740993 == 9007199254740992.0, True < 2)
print(sum([True, True, 1]))
