# Two coins: four choice sequences, one normal form each.
a := 0
if coin ():
    a += 1
b := 0
if coin ():
    b += 2
a + b
