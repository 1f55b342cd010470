# Ordering annotations with shared state: sequential writes to a store keep their order,
# readonly reads see every write before them, unordered pure calls run whenever ready.
from opal import readonly, sequential, unordered

STORE = {}


@sequential
def put(key, value):
    STORE[key] = value
    return len(STORE)


@readonly
def get(key):
    return STORE.get(key, "missing")


@unordered
def shout(text):
    return text.upper() + "!"


print(get("a"))
put("a", 1)
print(get("a"))
put("a", 2)
put("b", shout("hello"))
print(get("a"), get("b"))
sizes = [put(f"k{i}", i * i) for i in range(3)]
print(sizes, get("k2"))
