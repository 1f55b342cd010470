# Indentation fixture: Neovim, Vim and Emacs re-indent indent_scrambled.txt to exactly this.
extern fetch, check

rec count := fun (n, acc):
    if n == 0:
        ret acc
    else:
        ret count (n - 1, acc + 1)

total := 0
for x in [1, 2, 3]:
    # a comment in the loop body
    y := fetch x
    if check y:
        total += y
    elif y > 10:
        total -= 1
    else:
        total += 0
    total += 1
tries := 0
do:
    tries += 1
while tries < 3
pairs := [
    (1, "a:"),
    (2, "b"),
]
if total > 2: print "many"
else: print "few"
print (&stdout, (total, count (2, 0), pairs))
