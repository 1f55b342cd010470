# Methods that change their receiver, as statements: a stack and a queue (pop, insert, remove),
# sorting in place (with key), dictionary updates (update, setdefault, pop, popitem), clear.
stack = [3, 1, 2]
top = stack.pop()
stack.insert(0, 9)
stack.insert(-1, 7)
stack.remove(1)
print(stack, top)
stack.sort()
print(stack)
stack.sort(key=lambda v: -v)
print(stack)
stack.reverse()
first = stack.pop(0)
print(first, stack)
prefs = {"color": "blue"}
prefs.update({"size": "L", "color": "red"})
mode = prefs.setdefault("mode", "dark")
again = prefs.setdefault("mode", "light")
size = prefs.pop("size")
missing = prefs.pop("nope", None)
print(prefs, mode, again, size, missing)
last = prefs.popitem()
print(last, prefs)
queue = ["a", "b", "c"]
while queue:
    item = queue.pop(0)
    print("handling", item, len(queue))
seen = {}
for w in ["x", "y", "x"]:
    seen.setdefault(w, 0)
    seen[w] += 1
print(seen)
stack.clear()
print(stack)
