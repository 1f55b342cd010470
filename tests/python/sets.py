# Sets as LLM scripts use them: deduplicating answers, tracking what was seen, comparing
# the tags two models give; printed in the order CPython prints them.
from opal import unordered


@unordered
def tags_for(doc: str) -> set:
    words = doc.lower().split()
    return {w.strip(".,") for w in words if len(w) > 4}


@unordered
def score(doc: str) -> int:
    return len(doc) % 7


docs = ["Honolulu beaches, surfing lessons.", "Jakarta markets and surfing.", "Honolulu hiking."]

# Every document's tags at once; their union and what they share.
tags = [tags_for(d) for d in docs]
everything = set()
for t in tags:
    everything = everything | t
print(sorted(everything))
common = tags[0] & tags[1]
print(common, len(common))
print(sorted(tags[0] - tags[1]), sorted(tags[0] ^ tags[2]))

# Seen-before checks with add and discard, as a loop writes them.
seen = set()
firsts = []
for d in docs:
    s = score(d)
    if s not in seen:
        firsts.append(d[:8])
    seen.add(s)
print(firsts, len(seen))
seen.discard(99)
print(sorted(seen), 3 in seen)

# Displays, comprehensions and conversions; integers print in CPython's table order.
small = {10, 3, 7, 3}
print(small, len(small))
print({x % 5 for x in range(12)})
print(set(), set([]), bool(set()), bool(small))
print({-1, -2, 5}, {64, 33, 100, 7, 8})
print(set("banana") == {"a", "b", "n"}, sorted(set("banana")))
print({1, 1.0, True}, {(1, 2), (3, 4), (1, 2)})
print(isinstance(small, set), isinstance([1], set))
print(sum(small), max(small), min(small), sorted(small, reverse=True))
print(list({5, 1, 3}), [x * 2 for x in {5, 1, 3}])
for x in {9, 2, 17}:
    print("walk", x)
u = {1, 2}
u.update([3, 4], (5,))
u.remove(1)
print(u, u.issubset({2, 3, 4, 5, 6}), u.isdisjoint({7}), u.union({0}), u.intersection([2, 9]))
print(u.difference({2}), {3, 4}.issuperset({4}), 6 | 3, 6 & 3, 6 ^ 3)
counts = {}
for w in sorted({"b", "a", "c"}):
    counts[w] = len(w)
print(counts)

# A set grown with `|` and `|=` and walked.
found = set()
for d in docs:
    found = found | tags_for(d)
found |= {"extra"}
for w in sorted(found)[:3]:
    print("tag", w)
print(len([w for w in found if w.startswith("s")]))
for n in {3, 1} | {2}:
    print("n", n)
