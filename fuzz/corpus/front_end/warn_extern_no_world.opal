extern mystery
mystery 1
