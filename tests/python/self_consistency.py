# Self-consistency voting: sample several answers at once, count the votes, pick the majority.
import asyncio

from opal import unordered

QUESTION = "What is 17 * 3?"
ANSWERS = {0: "51", 1: "51", 2: "41", 3: "51", 4: "53"}


@unordered
async def sample(question, seed, temperature=0.7):
    await asyncio.sleep(0.05)
    return ANSWERS[seed]


votes = {}
for seed in range(5):
    answer = sample(QUESTION, seed)
    votes[answer] = votes.get(answer, 0) + 1
ranked = sorted(votes.items(), key=lambda kv: kv[1], reverse=True)
best, count = ranked[0]
print(f"votes: {votes}")
print(f"majority: {best} ({count} of {sum(votes.values())})")
