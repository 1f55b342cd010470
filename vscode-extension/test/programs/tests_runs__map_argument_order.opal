# Python's `map(f, l)` order: a static error (E0108) naming the shape `map` takes.
l := [1, 2]
print (map (fun x: x + 1, l))
