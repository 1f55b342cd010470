x := <nope>
x
