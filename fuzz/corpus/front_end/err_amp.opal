g (&stdout)
h := &stdout
