# Errors from the library inside `try`: a missing key, an index out of range, a bad number,
# a division by zero, caught by their class, a parent class or Exception, with `else`.
prices = {"apple": 3, "pear": 5}
basket = ["apple", "kiwi", "pear"]
total = 0
for item in basket:
    try:
        price = prices[item]
    except KeyError as e:
        print("no price for", e)
    else:
        total += price
print("total", total)

rows = [[1, 2], [3]]
for row in rows:
    try:
        second = row[1]
    except LookupError:
        print("short row", row)
    else:
        print("second", second)

for text in ["42", "4x2", "7"]:
    try:
        n = int(text)
        print("parsed", n * 2)
    except ValueError as e:
        print("not a number:", e)

for d in [4, 0]:
    try:
        q = 10 / d
    except ZeroDivisionError as e:
        print("cannot divide:", e)
    else:
        print("quotient", q)

try:
    ratio = 7 // 0
except Exception as e:
    print("caught", e)
finally:
    print("finally ran")
for a, b in [(7, 0), (7.0, 0), (True, 0)]:
    try:
        r = a % b
    except ZeroDivisionError as e:
        print("modulo:", e)
    try:
        r = a / b
    except ZeroDivisionError as e:
        print("divide:", e)
    try:
        r = a // b
    except ZeroDivisionError as e:
        print("floor:", e)
shares = {}
counts = {"a": 2, "b": 0}
for k in ["a", "b"]:
    try:
        shares[k] = 10 / counts[k]
    except ZeroDivisionError:
        shares[k] = None
    print(k, shares)
