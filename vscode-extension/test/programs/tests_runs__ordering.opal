# `print v` is sequential (PopPy's @sequential): prints come out in program order although the
# slow call finishes last; `slow` is unordered, so both calls run at once (wall time ≈ 300 ms).
extern slow
a := slow 300
b := slow 100
print a
print b
print "x"
