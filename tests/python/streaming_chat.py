# A streaming chat: the answer's tokens arrive one by one (an async generator) and are printed
# as they come, without line breaks, then a summary line.
import asyncio

from opal import unordered


@unordered
async def chat(question):
    for token in ["Opportunistic", " evaluation", " overlaps", " the", " calls", "."]:
        await asyncio.sleep(0.005)
        yield token


for question in ["What does OPAL do?", "Again?"]:
    print(question)
    tokens = chat(question)
    for t in tokens:
        print(t, end="")
    print()
    print(len(tokens), "tokens,", sum(len(t) for t in tokens), "characters")
