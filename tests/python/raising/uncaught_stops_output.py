# An exception no `except` clause names: nothing printed after the `try` comes out.
from opal import unordered


@unordered
def f(x):
    raise KeyError(x)


print("before")
try:
    v = f(-1)
except ValueError:
    v = 0
print("after")
