f := fun x:
    ret x
    y := 1
    y
f 1
