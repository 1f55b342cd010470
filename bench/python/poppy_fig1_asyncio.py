# tests/python/poppy_fig1.py written by hand with asyncio.gather.
import asyncio


async def ask_llm(prompt):
    await asyncio.sleep(0.05)
    return f"answer to '{prompt}'"


async def main():
    topics = ["rivers", "mountains", "deserts", "forests"]
    answers = await asyncio.gather(*(ask_llm(f"Name the longest of the {t}.") for t in topics))
    for topic, answer in zip(topics, answers):
        print(f"{topic}: {answer}")


asyncio.run(main())
