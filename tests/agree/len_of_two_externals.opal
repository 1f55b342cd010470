extern props
print (len (props "a" ++ props "b"))
