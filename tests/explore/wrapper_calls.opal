# Three external calls through a wrapper function (issue 17: 10 000 states without reduction).
extern slow
ask := fun x: slow x
a := ask 1
b := ask 2
c := ask 3
(a, b, c)
