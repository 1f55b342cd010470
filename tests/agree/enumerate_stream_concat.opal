extern stream
for (i, s) in enumerate (stream 1 ++ ["s4"]):
    print f"{i} {s}"
