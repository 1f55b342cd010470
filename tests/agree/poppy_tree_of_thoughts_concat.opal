# PopPy's Tree of Thoughts (examples/poppy_tree_of_thoughts.opal) with `xs := xs ++ …`
# instead of `+=` (issue 28: this failed under opportunistic and lazy evaluation).
# PopPy's Figure 1 (Mell et al. 2026): Tree of Thoughts, as close to the Python as OPAL's
# syntax allows. The LLM calls are unordered externals, so every proposal and every value
# call of a round runs at once; `print` is sequential, so the log comes out in program order
# ("0: 8", "1: 5", "2: duplicate", …) although the calls finish in any order.
extern llm_get_proposals, llm_get_value

NUM_STEPS := 2
BEAM_WIDTH := 2

get_values := fun (task, states):
    value_cache := []
    values := []
    for (idx, state) in enumerate states:
        if state in value_cache:
            value := 0
            print f"{idx}: duplicate"
        else:
            value := llm_get_value (task, state)
            value_cache := value_cache ++ [state]
            print f"{idx}: {value}"
        values := values ++ [value]
    ret values

tree_of_thoughts := fun task:
    states := [""]
    for step in range NUM_STEPS:
        new_states := []
        for s in states:
            new_states := new_states ++ llm_get_proposals (task, s)
        values := get_values (task, new_states)
        states := topk (new_states, values, BEAM_WIDTH)
        print states
    ret states

tree_of_thoughts "24 from 4 9 10 13"
