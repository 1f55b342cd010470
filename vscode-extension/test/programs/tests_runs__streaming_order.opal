# A stream consumed while it arrives, and an independent call that finishes in between.
extern words, other
for w in words "go":
    print (&stdout, w)
print (&stdout, other ())
