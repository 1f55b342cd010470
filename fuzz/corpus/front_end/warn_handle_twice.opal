print (stdout, "a")
print (stdout, "b")
