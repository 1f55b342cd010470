# Comprehensions, slicing, methods that read, and appending to a list nothing else holds.
words = "The quick brown fox jumps over the lazy dog".split()
print(words[:3], words[-2:], words[::3], words[5:1:-2])
lengths = [len(w) for w in words]
print(lengths, sum(n * n for n in lengths), max(len(w) for w in words))
long = [w.upper() for w in words if len(w) > 4]
print(long, ", ".join(long), "-".join(w[0] for w in words))
print([(i, w) for i, w in enumerate(words) if i % 4 == 0])
s = "  Hello, World  "
print(s.strip(), s.lower().strip(), s.replace("l", "L"), s.strip().startswith("Hell"))
print("a,b,,c".split(","), "x".join(["1", "2"]), "hello"[1:4], "hello"[::-1])
print("banana".count("an"), "banana".find("na"), "banana".find("z"), "abc".title())
d = {"a": 1, "b": 2}
print(d.get("a"), d.get("z", 0), d.get("z"), list(d.keys()), sorted(d.items()), list("abc"))
for k, v in d.items():
    print(k, v, [x for x in d.values()])
evens = []
for n in range(10):
    if n % 2 == 0:
        evens.append(n)
evens.extend([100, 200])
print(evens, evens.index(4), evens.count(100))
matrix = [[r * 3 + c for c in range(3)] for r in range(3)]
print(matrix, [row[1] for row in matrix])
print(sorted(words)[:4], len(d.keys()))
