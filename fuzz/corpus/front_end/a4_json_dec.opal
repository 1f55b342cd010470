# EPIC appendix A.4, JSONDec: constrained decoding with an incremental JSON check.
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
json_decode (&stdout, "Give me JSON: ")
