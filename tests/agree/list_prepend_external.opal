extern props
xs := ["z"] ++ props "a"
print (len xs)
