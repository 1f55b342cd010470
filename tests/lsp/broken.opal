extern lookup
total = 1
	y := 2
unused := 5
print (&stdout, totl)
print (stdout, 1)
print (stdout, 2)
z := undeclared_thing
