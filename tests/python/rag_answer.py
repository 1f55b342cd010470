# Retrieval-augmented answering: search several sources at once, score every passage at once,
# keep the best three, then one answer call over them.
import asyncio

from opal import readonly, unordered

SOURCES = {
    "wiki": ["Honolulu is on Oahu.", "Oahu is in Hawaii."],
    "news": ["Honolulu hosts a marathon.", "Surf is high on the North Shore."],
    "blog": ["Try the shave ice in Honolulu."],
}


@readonly
async def search(source, query):
    await asyncio.sleep(0.02)
    return [p for p in SOURCES[source] if any(w in p for w in query.split())]


@unordered
async def score(query, passage):
    await asyncio.sleep(0.01)
    return sum(1 for w in query.split() if w in passage) + len(passage) / 100


@unordered
async def answer(query, passages):
    await asyncio.sleep(0.02)
    return f"{query} -> {len(passages)} passages, first: {passages[0]}"


query = "Honolulu Oahu"
hits = [p for s in sorted(SOURCES) for p in search(s, query)]
scores = [score(query, p) for p in hits]
ranked = [p for _, p in sorted(zip(scores, hits), key=lambda sp: -sp[0])]
print(len(hits), "passages")
for p in ranked[:3]:
    print(" -", p)
print(answer(query, ranked[:3]))
