# A ledger behind sequential externals: deposits and withdrawals keep their order, a refused
# withdrawal raises and is caught, and readonly balance checks see every write before them.
from opal import readonly, sequential

BALANCES = {"ada": 100, "alan": 20}


class InsufficientFunds(Exception):
    pass


@sequential
def deposit(who, amount):
    BALANCES[who] = BALANCES[who] + amount
    return BALANCES[who]


@sequential
def withdraw(who, amount):
    if BALANCES[who] < amount:
        raise InsufficientFunds(f"{who} has {BALANCES[who]}, needs {amount}")
    BALANCES[who] = BALANCES[who] - amount
    return BALANCES[who]


@readonly
def balance(who):
    return BALANCES[who]


print(deposit("alan", 30))
for who, amount in [("ada", 70), ("alan", 80), ("ada", 40)]:
    try:
        left = withdraw(who, amount)
    except InsufficientFunds as e:
        print("refused:", e)
    else:
        print(who, "now has", left)
print(balance("ada"), balance("alan"))
