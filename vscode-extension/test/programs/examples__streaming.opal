# Fig. 10: loop over a list that is still streaming from an external call.
extern cf
resp := cf "foo"
for v in resp:
    print (&stdout, v)
