if 1 < 2:
    inner := 5
inner
