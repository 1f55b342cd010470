# EPIC appendix A.4, JSONDec: constrained decoding with an incremental JSON check. Each token
# depends on the one before, so this program is sequential by nature: opportunistic evaluation
# cannot beat the critical path here, and should not add to it.
extern llm_next, sample, json_prefix, json_complete
json_decode := fun (&stdout, prompt):
    gen := ""
    do:
        distr := llm_next (prompt + gen)
        next_tok := sample distr
        new_gen := gen + next_tok
        if json_prefix new_gen:
            gen := new_gen
            print (&stdout, next_tok)
    while not (json_complete gen)
    ret gen
json_decode (&stdout, "Give me JSON: ")
