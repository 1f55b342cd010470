words := ["pear", "fig", "banana"]
print (&stdout, map (words, fun w: len w))
(len (filter (words, fun w: len w > 3)), sort_by (words, fun w: len w))
