extern llm
words := ["pear", "fig"]
xs := map (words, fun w: llm w)
print (&stdout, len xs)
print (&stdout, xs)
(len xs, xs)
