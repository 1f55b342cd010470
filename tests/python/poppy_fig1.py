# PopPy's Figure 1 in spirit: a loop that asks an LLM about each item and collects the answers;
# written sequentially, it runs its calls at once under OPAL.
import asyncio

from opal import unordered


@unordered
async def ask_llm(prompt):
    await asyncio.sleep(0.05)
    return f"answer to '{prompt}'"


topics = ["rivers", "mountains", "deserts", "forests"]
answers = []
for topic in topics:
    answer = ask_llm(f"Name the longest of the {topic}.")
    answers.append(answer)
for topic, answer in zip(topics, answers):
    print(f"{topic}: {answer}")
