# Internal code calls into imported modules: each call is an external that runs in CPython's
# worker, with keyword arguments; pure ones (json, math, re) are unordered, random's calls keep
# their order (sequential), so a seeded sequence is the one CPython draws.
import json
import math
import os.path
import random
import re
import statistics
from os.path import join as pjoin
from textwrap import shorten

doc = '{"city": "Honolulu", "temps": [27, 29, 31, 28], "tags": ["sun", "sea"], "note": null}'
data = json.loads(doc)
print(data["city"], data["temps"], data["note"])
print(json.dumps(data, sort_keys=True))
print(json.dumps({"nested": [1, {"k": (2, 3)}]}, indent=2))
print(math.sqrt(2), math.floor(-2.5), math.ceil(2.1), math.pi)
print(statistics.mean(data["temps"]), statistics.median(data["temps"]))
words = re.findall(r"[a-z]+", "The quick brown fox, 42 jumps!")
print(words, re.sub(r"\d+", "#", "room 101 and 42"))
print(bool(re.match(r"^[A-Z]", data["city"])))
print(os.path.basename("/tmp/report.txt"), os.path.splitext("a/b.tar.gz"), pjoin("x", "y"))
print(shorten("opportunistic evaluation overlaps the calls", width=24))
random.seed(7)
draws = [random.randint(1, 100) for _ in range(5)]
print(draws, random.choice(["a", "b", "c"]))
