# A method that changes a list or dictionary, called inside an expression: a work queue
# drained into prints and calls, a stack popped in a `return`, a cache entry taken in an `if`.
from opal import unordered


@unordered
def summarize(doc):
    return f"summary of {doc}"


queue = ["intro.md", "api.md", "faq.md"]
summaries = []
while queue:
    summaries.append(summarize(queue.pop(0)))
print(summaries, queue)

stack = [1, 2, 3]
print(stack.pop(), stack)


def last_two(xs):
    ys = list(xs)
    first = ys.pop()
    return (first, ys.pop())


print(last_two([7, 8, 9]))

cache = {"q1": "cached answer"}
if cache.pop("q1", None) is not None:
    print("evicted", cache)
total = 10
scores = [3, 4]
total += scores.pop()
print(total, scores)
labels = {"a": 1, "b": 2}
print(f"{labels.pop('a')} left: {labels}")
