# Streams an LLM answer and prints each chunk as it arrives.
for chunk in llm "Say hello":
    print (&stdout, chunk)
