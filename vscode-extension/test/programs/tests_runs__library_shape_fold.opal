# `fold` takes (list, initial value, function); the function comes first here.
total := fun (f, xs): fold (f, 0, xs)
print (total (fun (acc, x): acc + x, [1, 2, 3]))
