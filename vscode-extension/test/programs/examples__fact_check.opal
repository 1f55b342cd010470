# EPIC appendix A.2, FactCheck: LLM tool use with Wikipedia lookups. The conversation is
# passed to the LLM as one string (externals take primitives and tuples, not Church lists);
# the tool calls of one reply are independent, so their lookups run at the same time.
extern gpt, wiki_top_search_result, wiki_page_summary
gpt_tu := fun (&stdout, t_func, t_descr, conv):
    do:
        (resp, t_args) := gpt (t_descr, join_str (conv, "\n"))
        conv ++= [resp]
        print (&stdout, resp)
        for t_arg in t_args:
            t_res := t_func t_arg
            conv ++= [t_res]
    while not (is_empty t_args)
    ret conv
wiki_lookup := fun topic:
    page_name := wiki_top_search_result topic
    wiki_page_summary page_name
fact_checker := fun (&stdout, fact):
    conv := [concat_str (concat_str ("Is ", fact), " true?")]
    wiki_descr := "Get topic info from Wikipedia"
    gpt_tu (&stdout, wiki_lookup, wiki_descr, conv)
conv := fact_checker (&stdout, "Juneau is the capital of Alaska")
length conv
