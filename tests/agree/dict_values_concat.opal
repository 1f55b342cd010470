extern table
d := table "t"
print (d["a"] ++ d["b"])
