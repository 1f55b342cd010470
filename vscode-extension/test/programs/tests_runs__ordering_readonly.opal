# PopPy's three classes: `write` is sequential (program order), `read` is readonly (reads may
# overlap each other, never a write), `fetch` is unordered (runs as soon as it can).
extern sequential write
extern readonly read
extern fetch
write "a"
x := read "a"
y := read "b"
write "b"
z := fetch "c"
print f"{x} {y} {z}"
