# EPIC appendix A.3, TreeOfThoughts: beam search with an LLM scorer.
extern expand, llm_get_value, top_k, stop
scorer_value := fun cands:
    out := []
    for cand in cands:
        score := llm_get_value cand
        out ++= [(cand, score)]
    ret out
beam_search := fun (&stdout, init, scorer):
    front := [init]
    do:
        cand := []
        for state in front:
            cand ++= expand state
        scored := scorer cand
        front := top_k scored
        for state in front:
            print (&stdout, state)
    while not (stop front)
beam_search (&stdout, "start", scorer_value)
