x := "\q"
x
