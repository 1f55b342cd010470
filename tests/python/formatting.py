price = 1234567.891
rate = 0.0725
name = "Ada"
items = ["tea", "milk"]
print(f"{name:>6}|{name:<6}|{name:^7}|{name:*^9}")
print(f"{price:,.2f} {rate:.1%} {rate:.3f} {price:e}")
print(f"{len(items)} items: {items} {items!r} {name!r}")
print(f"{7:03}" if False else f"{7:>3}", f"{-4:+}", f"{4:+}")
print(f"{{literal}} {1 + 2} {'nested'}")
width = 8
print(f"[{name:>{width}}]")

# print's end: a line built piece by piece, as a streamed answer prints.
for word in ["streamed", "token", "by", "token"]:
    print(word, end=" ")
print()
print("a", "b", sep="-", end="!\n")
print("no newline at the end", end="")
print()
