extern words, num
ls1 := ["a"] ++ words "a"
if num 1 > 0:
    print ls1
print "end"
