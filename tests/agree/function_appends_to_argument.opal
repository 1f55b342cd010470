extern props
add_z := fun l: l ++ ["z"]
print (add_z (props "a"))
