# Indexing past the end is a clear runtime error (exit 3), not a wrong answer.
xs := ["a", "b"]
print xs[5]
