# `map` takes (list, function); through a parameter the checker cannot see the order.
g := fun (a, b): map (a, b)
print (g (fun x: x + 1, [1, 2, 3]))
