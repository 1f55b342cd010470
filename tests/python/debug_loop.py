# A loop that calls a function: the DAP test stops on line 9 once per iteration.
def classify(n):
    if n % 2 == 0:
        return "even"
    return "odd"


for n in [-3, 0, 7, 10]:
    print(n, classify(n))
