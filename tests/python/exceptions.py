# try/except around externals that raise in CPython: classes the script defines for its
# externals, built-in classes and their bases, a tuple of classes, `as e` with str(e), else and
# finally blocks, a module function (json.loads) that raises, inside a loop of calls.
import json

from opal import unordered


class QuotaError(Exception):
    pass


@unordered
def summarize(doc):
    if doc == "bad":
        raise ValueError(f"cannot summarize {doc!r}")
    if doc == "quota":
        raise QuotaError("429 Too Many Requests")
    return doc.upper()


summaries = []
for doc in ["alpha", "bad", "beta", "quota"]:
    try:
        s = summarize(doc)
    except QuotaError as e:
        s = "retry later: " + str(e)
    except ValueError as e:
        s = f"failed: {e}"
    else:
        print("ok", doc)
    finally:
        print("done with", doc)
    summaries.append(s)
print(summaries)

for text in ['{"a": 1}', "not json"]:
    try:
        data = json.loads(text)
        print("parsed", data)
    except json.JSONDecodeError as e:
        data = {}
        print("bad json:", e)
    print(len(data))

try:
    summarize("bad")
except Exception:
    print("caught the base class")
try:
    summarize("quota")
except (KeyError, QuotaError) as err:
    print("tuple of classes:", err)

# The class's name, as logging lines write it; and of values.
for doc in ["short", "bad", "quota"]:
    try:
        s = summarize(doc)
        print(s)
    except Exception as e:
        print(f"{type(e).__name__}: {e}")
        print(type(e).__name__, repr(e))
print(type(1).__name__, type("s").__name__, type([1]).__name__, type(None).__name__)
print(type({1: 2}).__name__, type({1}).__name__, type((1, 2)).__name__, type(2.5).__name__)
