"""The word lists of the editor syntax files are the TextMate grammar's (the grammar is generated
by vscode-extension/syntaxes/gen.py, the one list kept with the language): every keyword,
external and prelude function it colours is coloured by editors/vim/syntax/opal.vim and
editors/emacs/opal-mode.el too.
usage: python3 words_check.py (from the repository root)"""
import json
import re
import sys

grammar = json.load(open("vscode-extension/syntaxes/opal.tmLanguage.json"))
words = set()
for rule in grammar["repository"]["keyword"]["patterns"] + grammar["repository"]["builtin"]["patterns"]:
    # The words of the alternation, without its lookarounds and escapes (`\b`, `[0-9]`).
    pattern = re.sub(r"\(\?<?[!=][^)]*\)|\\[a-z]|\[[^]]*\]", " ", rule["match"])
    words |= set(re.findall(r"[a-z_]{2,}", pattern))
# The `syn` lines, without Vim's word and match boundaries (`\<contains\>`, `\zsextern`).
vim = "\n".join(l for l in open("editors/vim/syntax/opal.vim") if l.startswith("syn "))
vim = re.sub(r"\\[<>]|\\z[se]", " ", vim)
emacs = open("editors/emacs/opal-mode.el").read()
missing = [f"vim: {w}" for w in sorted(words) if not re.search(rf"(?<!\w){w}(?!\w)", vim)]
missing += [f"emacs: {w}" for w in sorted(words) if f'"{w}"' not in emacs]
if missing:
    sys.exit("words: missing " + ", ".join(missing))
print(f"words: the {len(words)} keywords and functions of the TextMate grammar are in the Vim and Emacs files")
