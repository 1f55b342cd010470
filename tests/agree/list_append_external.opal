extern props
xs := props "a" ++ ["z"]
print (len xs)
