# `filter` takes (list, function); here it is given Python's order through a parameter.
keep := fun (p, xs): filter (p, xs)
print (keep (fun x: x > 1, [1, 2, 3]))
