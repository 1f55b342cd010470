# EPIC appendix A.3, TreeOfThoughts: beam search with an LLM scorer. Every candidate of a
# level is expanded and scored at the same time. `top_k` and `stop` are written in OPAL here
# (externals take primitives and tuples, not Church lists): keep candidates scoring 5 or more,
# for two levels.
extern expand, llm_get_value
scorer_value := fun cands:
    out := []
    for cand in cands:
        score := llm_get_value cand
        out ++= [(cand, score)]
    ret out
beam_search := fun (&stdout, init, scorer):
    front := [init]
    depth := 0
    do:
        cand := []
        for state in front:
            cand ++= expand state
        scored := scorer cand
        front := map (filter (scored, fun (c, s): s >= 5), fun (c, s): c)
        for state in front:
            print (&stdout, state)
        depth += 1
    while depth < 2
    ret front
best := beam_search (&stdout, "start", scorer_value)
length best
