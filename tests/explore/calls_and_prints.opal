# Three calls and two prints.
extern slow
a := slow 1
b := slow 2
print (&stdout, a)
c := slow 3
print (&stdout, b)
(a, b, c)
