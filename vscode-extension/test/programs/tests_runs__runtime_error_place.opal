# A failed call deep inside a function: the error names the line, the column and the code.
add_one := fun x: x + 1
words := ["a", "b"]
print (map (words, add_one))
