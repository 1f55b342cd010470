# The result needs a call that fails: every strategy reports it (exit 3), lazy included,
# instead of printing a result with a hole in it.
extern lookup
x := lookup "a"
(x, 1)
