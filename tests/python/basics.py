# Values print as CPython prints them.
names = ["b", "a", "it's"]
print(sorted(names), len(names))
print(7 // 2, -7 // 2, -7 % 3, 7 % -3, 2 ** 10, 2 ** -1, 0.1 + 0.2, 1 / 3, 10 / 2)
d = {"k": 1, "j": [True, None], "s": 'say "hi"'}
print(d, (1,), (1, 2), None, [], {})
a, b = 3, 4.5
print(a * b, str(a) + "!", repr("x"), sep=" | ")
print(1e16, 1e15, 0.00001, 123456.789, -0.5, 3.0)
print(int("42") + 1, float("2.5"), int(7.9), abs(-3), abs(-2.5), bool(""), bool([0]))
print(max(3, 9), min([4, 2, 8]), sum([1, 2, 3]), sum([0.5, 0.25]))
print("a" + "b" * 1, "x" in "xyz", 3 not in [1, 2])
