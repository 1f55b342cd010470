# Text statistics: word frequencies, the longest words, sentence counts and averages, with
# comprehensions, sorting by several keys and formatted output.
TEXT = """Opportunistic evaluation runs every call as soon as its arguments are ready.
Calls that do not depend on each other overlap. The program reads as it always did.
Nothing waits that need not wait."""

sentences = [s.strip() for s in TEXT.replace("\n", " ").split(".") if s.strip()]
words = [w.lower().strip(",") for s in sentences for w in s.split()]
freq = {}
for w in words:
    freq[w] = freq.get(w, 0) + 1
common = sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))[:4]
longest = sorted(list(freq), key=lambda w: (-len(w), w))[:3]
print(len(sentences), "sentences,", len(words), "words,", len(freq), "distinct")
print(common)
print(longest)
print(f"average sentence: {len(words) / len(sentences):.1f} words")
print({n: len([w for w in freq if len(w) == n]) for n in range(2, 6)})
