# A retry loop that re-raises on its last attempt: a bare `raise` inside an `if` in the
# `except` clause; nothing after it runs, later attempts included.
from opal import sequential


class Overloaded(Exception):
    pass


@sequential
def ask(question, attempt):
    raise Overloaded(f"503 on attempt {attempt}")


for attempt in range(5):
    try:
        answer = ask("why?", attempt)
        break
    except Overloaded as e:
        print("attempt", attempt, "failed:", e)
        if attempt == 2:
            raise
        print("waiting")
print("not reached", answer)
