# A loop that calls a function: the DAP tests stop on line 8 once per iteration.
def classify(n):
    if n % 2 == 0:
        return "even"
    return "odd"


for n in [-3, 0, 7, 10]:
    print(n, classify(n))
