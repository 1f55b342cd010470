# The OPAL prelude (LANGUAGE.md §4). Church booleans and lists, paper §4.1; fix, EPIC §3.7.
# `if`, `not`, `and`, `or` are keywords in OPAL, so they are defined here as `if_` … `or_`.
# Only the definitions a program uses (transitively) are added to its initial term.

true := fun (t, f): t ()
false := fun (t, f): f ()
if_ := fun (cond, case_true, case_false): cond (case_true, case_false)
not_ := fun b: b (fun (): false, fun (): true)
and_ := fun (a, b): a (fun (): b, fun (): false)
or_ := fun (a, b): a (fun (): true, fun (): b)
nil := fun (state, append): state
fold := fun (l, init, each): l (init, each)
cons := fun (hd, tl):
    fun (state, append):
        state := append (state, hd)
        fold (tl, state, append)
concat := fun (l1, l2):
    fun (state, append):
        state := fold (l1, state, append)
        fold (l2, state, append)
length := fun l: fold (l, 0, fun (n, x): add (n, 1))
reverse := fun l: fold (l, nil, fun (acc, x): cons (x, acc))
# `map` and `filter` call their function once per element, when they are called, as Python's
# list comprehensions do: a Church `map` (a fold that calls `f` at every traversal) would call
# an external again each time its list is read, and an external's argument could never read it
# back (the read-back does not run calls). The result is a `cons` list built by the machine.
map := fun (l, f):
    reverse (fold (l, nil, fun (acc, x): cons (f x, acc)))
filter := fun (l, p):
    reverse (fold (l, nil, fun (acc, x): if_ (p x, fun (): cons (x, acc), fun (): acc)))
is_empty := fun l: fold (l, true, fun (b, x): false)
join_str := fun (l, sep):
    step := fun ((acc, first), x): if_ (first, fun (): (x, false), fun (): (concat_str (concat_str (acc, sep), x), false))
    (s, _) := fold (l, ("", true), step)
    s
fix_s := fun (fix_s, f_s):
    fun i:
        f := fix_s (fix_s, f_s)
        f_s (f, i)
fix := fun f_s: fix_s (fix_s, f_s)
sort_by := fun (l, key): order_by (l, map (l, key))
# In a program with ordered calls (`print v`, `extern sequential`), user functions take and
# return the sequencing token: `f (tok, x)` gives `(tok, y)`. These are the higher-order
# functions for them; each calls its function argument in list order, threading the token.
map_t := fun (tok, (l, f)):
    step := fun ((tok, acc), x):
        (tok, y) := f (tok, x)
        (tok, cons (y, acc))
    (tok, acc) := fold (l, (tok, nil), step)
    (tok, reverse acc)
filter_t := fun (tok, (l, p)):
    step := fun ((tok, acc), x):
        (tok, keep) := p (tok, x)
        (tok, if_ (keep, fun (): cons (x, acc), fun (): acc))
    (tok, acc) := fold (l, (tok, nil), step)
    (tok, reverse acc)
fold_t := fun (tok, (l, init, each)): fold (l, (tok, init), fun ((tok, acc), x): each (tok, (acc, x)))
if_t := fun (tok, (cond, case_true, case_false)): cond (fun (): case_true (tok, ()), fun (): case_false (tok, ()))
sort_by_t := fun (tok, (l, key)):
    (tok, ks) := map_t (tok, (l, key))
    (tok, order_by (l, ks))
fix_st := fun (fix_st, f_s):
    fun (tok, i):
        f := fix_st (fix_st, f_s)
        f_s (tok, (f, i))
fix_t := fun f_s: fix_st (fix_st, f_s)
