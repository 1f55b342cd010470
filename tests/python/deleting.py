# `del` as scripts use it: dropping a cache entry, a processed item, a temporary name.
inventory = {"apples": 3, "pears": 0, "plums": 5}
for fruit in ["pears", "plums"]:
    if inventory[fruit] == 0:
        del inventory[fruit]
print(inventory)

queue = ["a", "b", "c", "d"]
del queue[0]
del queue[-1]
print(queue)
del queue[0], queue[0]
print(queue, len(queue))

scores = {1: "one", 2: "two"}
del scores[1.0]
print(scores)

try:
    del scores[3]
except KeyError as e:
    print("missing:", e)

items = [10, 20]
try:
    del items[5]
except IndexError as e:
    print("index:", e)

tmp = "scratch"
print(tmp)
del tmp
tmp = "again"
print(tmp)

# Changing a collection in a `try` raises what Python raises, and the clause catches it.
pending = []
try:
    job = pending.pop()
    print("got", job)
except IndexError as e:
    print("nothing to do:", e)
seen = ["x"]
for word in ["x", "y"]:
    try:
        seen.remove(word)
        print("removed", word)
    except ValueError:
        print("not seen:", word)
limits = {"gpt": 3}
try:
    n = limits.pop("claude")
except KeyError as e:
    print("no limit for", e)
print(seen, limits)
