# tests/python/self_consistency.py written by hand with asyncio.gather.
import asyncio

QUESTION = "What is 17 * 3?"
ANSWERS = {0: "51", 1: "51", 2: "41", 3: "51", 4: "53"}


async def sample(question, seed, temperature=0.7):
    await asyncio.sleep(0.05)
    return ANSWERS[seed]


async def main():
    answers = await asyncio.gather(*(sample(QUESTION, s) for s in range(5)))
    votes = {}
    for answer in answers:
        votes[answer] = votes.get(answer, 0) + 1
    ranked = sorted(votes.items(), key=lambda kv: kv[1], reverse=True)
    best, count = ranked[0]
    print(f"votes: {votes}")
    print(f"majority: {best} ({count} of {sum(votes.values())})")


asyncio.run(main())
