# Dictionaries as scripts use them: counting, grouping, nested records, iteration in insertion
# order, get with defaults, sorting by value, and printing.
words = "the cat and the hat and the bat".split()
counts = {}
for w in words:
    counts[w] = counts.get(w, 0) + 1
print(counts)
by_count = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
print(by_count[:2])
groups = {}
for w in words:
    key = w[-2:]
    groups[key] = groups.get(key, []) + [w]
print(groups)
people = [{"name": "Ada", "age": 36}, {"name": "Alan", "age": 41}, {"name": "Grace", "age": 85}]
print([p["name"] for p in people if p["age"] > 40])
oldest = max(people, key=lambda p: p["age"])
youngest = min(people, key=lambda p: p["age"])
print(youngest["name"], max(["bb", "aa", "c"], key=len), min(["bb", "aa", "c"], key=len))
print(oldest["name"], len(people), "age" in people[0], "email" in people[0])
for name, age in [(p["name"], p["age"]) for p in people]:
    print(f"{name:>6}: {age}")
print(list(counts.keys()), list(counts.values()), dict(zip(["x", "y"], [1, 2])))
