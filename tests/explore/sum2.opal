# Summing a 2-element list (374 000 states without reduction).
total := 0
for n in [1, 2]:
    total += n
total
