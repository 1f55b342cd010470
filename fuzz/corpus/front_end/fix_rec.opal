# EPIC §3.7: recursion through fix, written with `rec`.
rec fact := fun n:
    if n <= 1:
        ret 1
    else:
        ret n * fact (n - 1)
fact 10
