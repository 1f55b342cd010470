# Projection out of a primitive that only a run can see (through a function): stuck.
f := fun x: prj 1 x
print (&stdout, "start")
f 3
