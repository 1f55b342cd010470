# Retry loops as LLM scripts write them: `break`, `continue` and `return` inside `try`,
# a `raise` in a `try` body, names first bound inside a loop or a branch and read after it.
from opal import unordered


class RateLimitError(Exception):
    pass


class Refused(RateLimitError):
    pass


FAILS = {"tokyo": 2, "lima": 0, "oslo": 9, "rome": 1, "paris": 9, "bern": 9, "kyiv": 9}
CALLS = {}


@unordered
def ask(city):
    n = CALLS.get(city, 0)
    CALLS[city] = n + 1
    if n < FAILS[city]:
        if n == 0:
            raise Refused(f"{city}: refused")
        raise RateLimitError(f"429 for {city} (attempt {n})")
    return f"weather in {city}: sunny"


def with_break(city):
    for attempt in range(4):
        try:
            answer = ask(city)
            break
        except RateLimitError as e:
            print("  retry", attempt, "after", e)
            continue
    else:
        answer = "gave up on " + city
    return answer


def with_return(city, tries):
    for attempt in range(tries):
        try:
            return ask(city)
        except Refused:
            print("  refused, trying again")
        except RateLimitError as e:
            print("  rate limited:", str(e))
    return None


def first_or_default(city):
    try:
        return ask(city)
    except RateLimitError:
        return "default for " + city


def parse_all(texts):
    out = []
    for t in texts:
        try:
            if t.startswith("#"):
                raise ValueError("comment: " + t)
            n = int(t)
        except ValueError as e:
            print("  skipped", e)
            continue
        out.append(n * 2)
    return out


for city in ["tokyo", "lima", "oslo"]:
    print(city, "->", with_break(city))
print(with_return("rome", 3))
print(with_return("paris", 2))
print(first_or_default("lima"))
print(first_or_default("bern"))
print(parse_all(["1", "x", "#3", "4"]))

count = 0
while True:
    count += 1
    try:
        if count > 2:
            raise KeyError("done")
        print("round", count)
    except LookupError as e:
        print("stopped:", e)
        break
print("count", count)

for n in [3, 8, 5]:
    if n > 4:
        found = n
        break
print("found", found)
total = 0
for word in "a bb ccc".split():
    size = len(word)
    total += size
print("last size", size, "total", total)
if total > 3:
    label = "long"
else:
    label = "short"
print(label)
for n in [3, 8, 5]:
    if n > 4:
        break
print("stopped at", n)
for k, v in [(1, "a"), (2, "b")]:
    pass
print("last pair", k, v)
try:
    raise KeyError("k")
except LookupError as e:
    print(f"{e}", f"{e!r}", str(e), [e], isinstance(e, KeyError), isinstance(e, ValueError))
try:
    ask("kyiv")
except RateLimitError as err:
    print(repr(err), isinstance(err, Refused), isinstance(err, Exception))
