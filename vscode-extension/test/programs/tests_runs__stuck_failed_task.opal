# The world has no response for this argument: the task fails, the run is stuck (exit 3),
# and what did not depend on it still ran.
extern lookup
x := lookup "a"
print (&stdout, "before")
print (&stdout, x)
