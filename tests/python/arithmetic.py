# Arithmetic as Python does it: true and floor division, modulo's sign, powers, rounding half
# to even, int/float conversions, and floats printed with their shortest digits.
a, b = 17, -5
print(a / b, a // b, a % b, -a // 5, -a % 5)
print(2 ** 10, 2 ** -1, 10 ** 18, (-2) ** 3)
print(round(2.5), round(3.5), round(-0.5), round(2.675, 2), round(1234.5678, -2))
print(round(1250, -2), round(1350, -2), round(-1250, -2), round(15, -1), round(1251.0, -2))
print(int("42") + 1, float("1.5") * 2, int(7.9), int(-7.9), abs(-3), abs(-2.5))
print(0.1 + 0.2, 1e16, 1e-5, 1 / 3, 2.0, 100.0 / 4)
print(max(3, 9, 4), min([2.5, 1, 7]), sum([0.1] * 10), sum(range(101)))
print(7 // 2 * 2 + 7 % 2 == 7, 3 < 5 <= 5 != 6)
print((17 // 5, 17 % 5), f"{-42:05d}|{7:03}|{3.5:07.2f}")
total = 0
for n in range(1, 11):
    if n % 3 == 0:
        continue
    total += n * n
print(total, bool(0), bool(0.0), bool(""), bool([0]))
