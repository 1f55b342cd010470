# `sort_by` takes (list, key function); the key comes first here.
by := fun (k, xs): sort_by (k, xs)
print (by (fun x: 0 - x, [3, 1, 2]))
