# Externals that run in CPython's worker (no world file): async ones overlap on its event
# loop, plain ones run on its thread pool, an async generator streams, module constants and
# imports live beside them, and a sequential external's prints keep their place.
import asyncio
import json
import math

from opal import readonly, sequential, unordered

SCALE = 3


@unordered
async def fetch(city):
    await asyncio.sleep(0.02)
    return {"city": city, "temp": len(city) * SCALE, "tags": ["sun", city.lower()]}


@readonly
def parse(text):
    return json.loads(text)


@unordered
def root(x):
    return math.sqrt(x)


@unordered
async def tokens(text):
    for word in text.split():
        await asyncio.sleep(0.001)
        yield word


@unordered
def pair(a, b=10):
    return (a, b, a * b)


class Client:
    """Only externals use it: it loads in the worker, and its objects stay there."""

    def __init__(self, name):
        self.name = name

    def ask(self, question):
        return f"{self.name} says: {question.upper()}"


@unordered
def connect(name):
    return Client(name)


@unordered
def ask(client, question):
    return client.ask(question)


@sequential
def note(line):
    print("note:", line)
    return len(line)


cities = ["Honolulu", "Oslo", "Lima"]
reports = [fetch(c) for c in cities]
for r in reports:
    print(r["city"], r["temp"], r["tags"])
print(parse('{"a": [1, 2.5, null, true], "b": {"c": "d"}}'))
print(root(2.0), root(16))
print([t.upper() for t in tokens("a streamed answer")])
print(pair(3), pair(2, b=7))
first = note("first")
second = note("second one")
print(first, second)
client = connect("oracle")
answers = [ask(client, q) for q in ["why", "how"]]
print(answers)
