f := fun (a, b): a
f (1, 2, 3)
