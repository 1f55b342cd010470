# print and the result read values back as the paper writes them.
print [1, "two", [3]]
print (true, ())
print {"k": "v"}
(["Honolulu", "Jakarta"], not true)
