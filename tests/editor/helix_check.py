"""editors/helix/languages.toml against Helix's schema (Helix is not packaged for Debian 12, so
it is not run): the TOML parses, every key is one Helix reads (`LanguageConfiguration` and
`LanguageServerConfiguration` in helix-core/src/syntax/config.rs, which deny unknown fields),
the required ones are there, and the language's server is defined as `opal lsp`.
usage: python3 helix_check.py editors/helix/languages.toml"""
import sys
import tomllib

LANGUAGE_KEYS = {
    "name", "language-id", "scope", "file-types", "shebangs", "roots", "comment-tokens",
    "comment-token", "block-comment-tokens", "text-width", "soft-wrap", "auto-format",
    "code-actions-on-save", "formatter", "path-completion", "word-completion",
    "diagnostic-severity", "grammar", "injection-regex", "language-servers", "indent", "debugger",
    "auto-pairs", "rulers", "workspace-lsp-roots", "persistent-diagnostic-sources",
    "rainbow-brackets",
}
SERVER_KEYS = {"command", "args", "environment", "config", "timeout", "required-root-patterns"}

with open(sys.argv[1], "rb") as f:
    config = tomllib.load(f)
[language] = config["language"]
servers = config["language-server"]
problems = [f"unknown key {k}" for k in language if k not in LANGUAGE_KEYS]
problems += [f"missing {k}" for k in ("name", "scope", "file-types") if k not in language]
problems += [f"unknown server key {k}" for s in servers.values() for k in s if k not in SERVER_KEYS]
if set(language["indent"]) != {"tab-width", "unit"}:
    problems.append(f"indent: {language['indent']}")
for name in language["language-servers"]:
    server = servers.get(name, {})
    if [server.get("command")] + server.get("args", []) != ["opal", "lsp"]:
        problems.append(f"server {name}: {server}")
if problems:
    sys.exit("helix: " + "; ".join(problems))
print(f"helix: {language['name']} for .{', .'.join(language['file-types'])}, "
      f"comment {language['comment-token']!r}, indent {language['indent']['unit']!r}, "
      f"servers {language['language-servers']} = opal lsp")
