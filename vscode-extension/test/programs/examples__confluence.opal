# Two independent computations: every step order reaches the same term (`opal explore`).
a := 1 + 2
b := 3 * 4
(a, b)
