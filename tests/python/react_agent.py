# A ReAct agent with a mocked tool: the model thinks, picks an action, the tool answers, until
# the model gives a final answer. Each step depends on the last, so nothing overlaps here; the
# two independent lookups at the end do.
import asyncio

from opal import readonly, unordered

SCRIPT = [
    "Thought: I need the population of Paris.\nAction: search[Paris population]",
    "Thought: Now the population of Berlin.\nAction: search[Berlin population]",
    "Thought: Paris has 2.1M, Berlin 3.6M.\nFinal Answer: Berlin",
]
FACTS = {"Paris population": "2.1 million", "Berlin population": "3.6 million"}


@unordered
async def llm(prompt):
    await asyncio.sleep(0.01)
    return SCRIPT[prompt.count("Observation:")]


@readonly
async def search(query):
    await asyncio.sleep(0.01)
    return FACTS.get(query, "no result")


def parse_action(reply):
    line = reply.split("\n")[-1]
    if line.startswith("Final Answer:"):
        return "finish", line[len("Final Answer:"):].strip()
    name, _, rest = line[len("Action: "):].partition("[")
    return name, rest.rstrip("]")


prompt = "Question: Which city is bigger, Paris or Berlin?"
steps = 0
while True:
    reply = llm(prompt)
    action, arg = parse_action(reply)
    steps += 1
    if action == "finish":
        print("answer:", arg, "after", steps, "steps")
        break
    observation = search(arg)
    print(f"{action}({arg!r}) -> {observation}")
    prompt = prompt + "\n" + reply + "\nObservation: " + observation
both = [search(q) for q in sorted(FACTS)]
print(both)
