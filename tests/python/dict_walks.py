# Walking dictionaries the script did not build itself: an external's answer, a parameter.
# The script shows they are dictionaries by an annotation or a dictionary method.
from opal import unordered


@unordered
def profile(name) -> dict:
    return {"name": name, "age": 3, "tags": ["a", "b"]}


@unordered
def scores(names):
    return {n: len(n) for n in names}


def show(d: dict):
    for k in d:
        print(k, d[k])
    print(len(d), list(d), sorted(d))
    print([k for k in d])
    print("name" in d)


def best(table):
    top = None
    for k in table:
        if top is None or table[k] > table[top]:
            top = k
    return top, table.get(top)


p = profile("ada")
for k in p:
    print("key", k)
show(p)
print([k.upper() for k in p])
print(dict(p))
for k, v in p.items():
    print(k, v)
print(best(scores(["al", "bea", "cy"])))
