# Functions as values: lambdas, closures over a loop's values, functions passed to map,
# filter and sorted, a function returning a function, default arguments.
def make_adder(n):
    return lambda x: x + n


def compose(f, g):
    return lambda x: f(g(x))


def apply_all(fs, x):
    return [f(x) for f in fs]


add3 = make_adder(3)
double = lambda x: x * 2
print(add3(4), compose(add3, double)(5), compose(double, add3)(5))
adders = [make_adder(i) for i in range(3)]
print(apply_all(adders, 10))
print(list(map(double, [1, 2, 3])), list(filter(lambda v: v % 2, range(7))))
print(sorted(["pear", "fig", "banana"], key=len), sorted([3, 1, 2], reverse=True))


def greet(name, greeting="Hello", punct="!"):
    return f"{greeting}, {name}{punct}"


print(greet("Ada"), greet("Alan", "Hi"), greet("Grace", punct="?"))
