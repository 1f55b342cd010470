# SEMANTICS.md §6: sum a Church list.
total := 0
for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]:
    total += n
print (&stdout, total)
total
