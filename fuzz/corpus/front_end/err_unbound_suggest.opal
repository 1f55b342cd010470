total := 1
totl + 1
