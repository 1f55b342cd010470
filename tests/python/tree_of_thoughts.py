# Tree of Thoughts (PopPy's running example) in Python: propose thoughts from each state,
# value every proposal at once, keep the best few, two levels deep.
import asyncio

from opal import unordered


@unordered
async def propose(state):
    await asyncio.sleep(0.01)
    return [state + step for step in ["a", "b", "c"]]


@unordered
async def value(thought):
    await asyncio.sleep(0.02)
    return sum(ord(ch) for ch in thought) % 7


states = [""]
for depth in range(2):
    candidates = [t for s in states for t in propose(s)]
    scores = [value(c) for c in candidates]
    ranked = sorted(zip(scores, candidates), key=lambda p: p[0], reverse=True)
    states = [c for _, c in ranked[:2]]
    print(f"depth {depth}: {len(candidates)} candidates, kept {states}")
print("best:", states[0])
