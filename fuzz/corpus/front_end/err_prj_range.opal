t := (1, 2)
prj 3 t
