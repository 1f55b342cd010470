# Lists of lists: building a matrix, transposing with zip, multiplying, and printing rows.
def transpose(m):
    return [[row[j] for row in m] for j in range(len(m[0]))]


def matmul(a, b):
    cols = transpose(b)
    return [[sum(x * y for x, y in zip(row, col)) for col in cols] for row in a]


a = [[1, 2, 3], [4, 5, 6]]
b = [[7, 8], [9, 10], [11, 12]]
print(transpose(a))
c = matmul(a, b)
print(c)
identity = [[1 if i == j else 0 for j in range(3)] for i in range(3)]
print(matmul(a, identity) == a, len(c), len(c[0]))
for row in c:
    print(" ".join(f"{v:4d}" for v in row))
print([max(r) for r in a], [sum(col) for col in transpose(a)])
