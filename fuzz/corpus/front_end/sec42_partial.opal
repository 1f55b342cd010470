# §4.2: a partial list with holes h1, h2 supplied by external calls.
extern h1, h2
partial := fun (state, append):
    state := append (state, "H")
    state := h1 (state, append)
    state := append (state, "J")
    state := h2 (state, append)
    state
for v in partial:
    print (&stdout, v)
