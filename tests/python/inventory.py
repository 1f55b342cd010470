# A small inventory with records in dictionaries and lists: adding, removing, restocking,
# sorting a report, and totals with formatting.
stock = {"apple": 12, "pear": 3, "fig": 0}
prices = {"apple": 0.5, "pear": 0.75, "fig": 1.2}
orders = [("apple", 5), ("pear", 4), ("fig", 1), ("apple", 2)]
filled = []
missed = []
for item, qty in orders:
    if stock.get(item, 0) >= qty:
        stock[item] -= qty
        filled.append((item, qty))
    else:
        missed.append(item)
restock = [k for k, v in stock.items() if v < 5]
for k in restock:
    stock[k] += 10
revenue = sum(prices[i] * q for i, q in filled)
print(filled, missed)
print(sorted(stock.items(), key=lambda kv: kv[1], reverse=True))
print(f"revenue: {revenue:.2f}, restocked: {', '.join(restock)}")
report = [f"{name:<6}{count:>4}" for name, count in sorted(stock.items())]
print("\n".join(report))
