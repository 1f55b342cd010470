extern props, llm
names := props "n"
xs := []
for s in names:
    xs := xs ++ llm s
print xs
