# Defaults, keyword arguments, lambdas, sorting with keys, and the rest of the built-ins.
def greet(name, greeting="Hello", punct="!"):
    return f"{greeting}, {name}{punct}"


def clamp(x, lo=0, hi=10):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def first_word(text):
    words = text.split()
    if not words:
        return None
    return words[0]


print(greet("Ada"), greet("Bob", "Hi"), greet("Cy", punct="?"), greet(greeting="Yo", name="Di"))
print([clamp(v) for v in [-5, 3, 42]], clamp(7, hi=5), clamp(-1, lo=-3))
print(first_word("  lazy dog "), first_word("   "))
people = [("ann", 31), ("bob", 25), ("cid", 31), ("dee", 19)]
print(sorted(people, key=lambda p: p[1]))
print(sorted(people, key=lambda p: p[1], reverse=True))
print(sorted([3, 1, 2], reverse=True), sorted(["b", "A", "c"], key=lambda s: s.lower()))
print(any([0, "", None]), any([0, 1]), all([1, "x"]), all([]), any(n > 30 for _, n in people))
print(round(2.5), round(3.5), round(-0.5), round(2.675, 2), round(7), round(1.23456, 3))
print(isinstance(3, int), isinstance(True, int), isinstance("s", str), isinstance(2.0, int))
print(tuple([1, 2]), tuple("ab"), list((3, 4)))
name = ""
shown = name or "anonymous"
count = 5
label = count and "some"
print(shown, label, None or "x" if False else "y")
square = lambda n: n * n
print(square(12), (lambda a, b: a - b)(10, 4))
