# §4.1: Church booleans and lists.
c := if (false, fun (): "a", fun (): "b")
l := [1, 2, 3]
total := fold (l, 0, fun (s, x): s + x)
m := map (l, fun x: x * 2)
big := filter (m, fun x: x > 2)
n := length big
(c, total, n)
