# Map-reduce over documents with an LLM external (PopPy Figure 1's shape): every summary call
# is independent, so OPAL runs them at once; CPython runs them one after another.
import asyncio

from opal import unordered

DOCS = ["alpha beta", "gamma", "delta epsilon zeta", "eta"]


@unordered
async def summarize(doc):
    await asyncio.sleep(0.05)
    return f"summary of {doc} ({len(doc.split())} words)"


@unordered
async def combine(parts):
    await asyncio.sleep(0.05)
    return " | ".join(parts)


summaries = []
for doc in DOCS:
    s = summarize(doc)
    summaries += [s]
    print("queued", doc)
print(combine(summaries))
print(len(summaries), "documents")
