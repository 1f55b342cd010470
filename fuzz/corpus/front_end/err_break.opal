for x in [1, 2]:
    break
