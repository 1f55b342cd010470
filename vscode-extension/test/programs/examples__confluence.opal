# Strong confluence (paper Prop. 3.5), small enough to see: two calls of `id` that do not
# depend on each other. Teach > All paths (A) in `opal debug` draws every order: whichever
# call steps first, the other still can, and both orders meet again (the diamonds).
# `opal explore examples/confluence.opal --full` counts the states; it is in core notation.
id := fun x:
  ret x
one := <1>
two := <2>
a := id one
b := id two
r := (a, b)
ret r
