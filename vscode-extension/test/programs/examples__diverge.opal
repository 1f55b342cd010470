# §3.4: opportunistic evaluation prints "foo" while `diverge` loops;
# cbv never prints (stuck stepping diverge), lazy never prints (not needed for "bar").
rec diverge := fun (): diverge ()
() := diverge ()
() := print <"foo">
<"bar">
