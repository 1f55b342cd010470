s = "naïve café — ✓"
print(s, len(s))
print(repr("tab\there"), repr("new\nline"), repr("back\\slash"))
print(["it's", 'say "x"', "both ' and \""])
print("é" < "z", sorted(["b", "é", "a", "Z"]))
