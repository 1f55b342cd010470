# String work scripts do: splitting, joining, slicing, searching, case, padding, formatting
# numbers, and the methods that read strings.
text = "  The quick brown fox jumps over the lazy dog.  "
clean = text.strip()
words = clean.rstrip(".").split()
print(len(words), words[0], words[-1], words[2:5])
print(" ".join(w.capitalize() for w in words))
print(clean.lower().count("o"), clean.find("fox"), clean.find("cat"))
print(clean[:9], clean[-4:], clean[::5])
print(clean.replace("lazy", "sleepy").upper())
print(clean.startswith("The"), clean.endswith("dog."), "fox" in clean)
print("-".join(["a", "b", "c"]), "a,b,,c".split(","), "x=1".partition("="))
print(f"{'left':<8}|{'right':>8}|{'mid':^9}|")
print(f"{3.14159:.2f} {42:05d} {1234567:,} {0.25:.0%} {7:+d}")
print(repr("quote's"), repr('say "hi"'), str(12) + "px")
lines = "one\ntwo\n\nthree".split("\n")
print([l for l in lines if l], "\n".join(reversed(lines)).strip())
print("abc".isalpha(), "123".isdigit(), " ".isspace(), "Title Case".istitle())
