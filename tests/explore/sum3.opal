total := 0
for n in [1, 2, 3]:
    total += n
total
