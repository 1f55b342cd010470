extern props
a := props "a"
b := props "b"
print (json_dump (a ++ b))
