# Retrying a flaky external: try/except inside a while loop, with an attempt counter and a
# give-up path, for several requests at once.
from opal import sequential, unordered

FAILS = {"a": 2, "b": 0, "c": 5}
ATTEMPTS = {}


@sequential
def fetch(key, attempt):
    ATTEMPTS[key] = ATTEMPTS.get(key, 0) + 1
    if attempt < FAILS[key]:
        raise ConnectionError(f"{key}: attempt {attempt} failed")
    return f"{key}-data"


@unordered
def count(key):
    return ATTEMPTS.get(key, 0)


results = {}
for key in ["a", "b", "c"]:
    attempt = 0
    done = False
    while not done and attempt < 3:
        try:
            value = fetch(key, attempt)
        except ConnectionError as e:
            print("retrying after:", e)
            attempt += 1
        else:
            results[key] = value
            done = True
    if not done:
        results[key] = None
        print("gave up on", key)
print(results)
