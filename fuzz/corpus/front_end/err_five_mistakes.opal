x := (1 +
y := ]
z := "unterminated
w := 1 2 3 +
ok := 5
ok
