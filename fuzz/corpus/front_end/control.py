def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def classify(n):
    if n < 0:
        return "negative"
    elif n == 0:
        return "zero"
    if n % 2 == 0:
        kind = "even"
    else:
        kind = "odd"
    return kind


def countdown(n):
    out = []
    while n > 0:
        out += [n]
        n -= 1
    return out


print(fib(15))
for n in [-3, 0, 7, 10]:
    print(n, classify(n))
print(countdown(5))
total = 0
for i, name in enumerate(["x", "y", "z"]):
    total += i
    print(i, name)
print("total", total)
pairs = zip([1, 2, 3], ["a", "b", "c"])
for n, s in pairs:
    print(f"{n}-{s}")
if __name__ == "__main__":
    print("done")
