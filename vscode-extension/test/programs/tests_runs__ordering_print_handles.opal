# `print v` (sequential: the token) and `print (&stdout, x)` (the handle) share one order when a
# program makes ordered calls: every line comes out in program order, although `print
# "streamed"` could run before the stream's chunks arrive and the handle prints after `slow`
# could run before it resolves.
extern tokens, slow
print "start"
for tok in tokens "q":
    print (&stdout, tok)
print "streamed"
x := slow 1
print x
print (&stdout, "after slow")
print (stdout, "explicit without &")
print "done"
