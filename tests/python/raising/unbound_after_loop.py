# A name bound only inside a loop that never ran: reading it after the loop is CPython's
# NameError, and the output stops there.
for word in []:
    last = word
print("before")
print(last)
print("not reached")
