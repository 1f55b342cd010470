# tests/python/map_reduce.py written by hand with asyncio.gather.
import asyncio

DOCS = ["alpha beta", "gamma", "delta epsilon zeta", "eta"]


async def summarize(doc):
    await asyncio.sleep(0.05)
    return f"summary of {doc} ({len(doc.split())} words)"


async def combine(parts):
    await asyncio.sleep(0.05)
    return " | ".join(parts)


async def main():
    summaries = await asyncio.gather(*(summarize(d) for d in DOCS))
    for doc in DOCS:
        print("queued", doc)
    print(await combine(summaries))
    print(len(summaries), "documents")


asyncio.run(main())
