# Prints keep program order through user functions, loops, `if`, recursion and higher-order
# functions, while the slow calls they wait on overlap.
extern slow

show := fun (label, x):
    print f"{label}: {x}"

rec countdown := fun n:
    if n > 0:
        print f"countdown {n}"
        countdown (n - 1)

twice := fun f:
    f "first"
    f "second"

for i in [3, 1, 2]:
    show ("loop", slow i)
if len (slow 2) > 1:
    print "long"
else:
    print "short"
countdown 3
twice (fun w: print (w + " call"))
_shown := map ([slow 1, slow 2], fun s: show ("map", s))
print "done"
