# break and continue: a search that stops early, a filter that skips, nested loops, and a
# ReAct-style `while True` agent loop with a mocked tool.
from opal import unordered


@unordered
def tool(query):
    return {"weather": "sunny", "time": "noon"}.get(query, "unknown")


def first_negative(xs):
    found = None
    for x in xs:
        if x < 0:
            found = x
            break
    return found


print(first_negative([3, 1, -4, 1, -5]), first_negative([1, 2]))
odds = []
for n in range(10):
    if n % 2 == 0:
        continue
    if n > 7:
        break
    odds.append(n)
print(odds)
pairs = []
for i in range(4):
    for j in range(4):
        if j > i:
            break
        if (i + j) % 2 == 1:
            continue
        pairs.append((i, j))
print(pairs)
steps = 0
plan = ["weather", "time", "finish", "never"]
answers = []
while True:
    action = plan[steps]
    steps += 1
    if action == "finish":
        break
    answers.append(f"{action}={tool(action)}")
print(steps, answers)
n = 0
while n < 100:
    n += 7
    if n % 5 == 0:
        break
print(n)
