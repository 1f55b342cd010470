# Generates opal.tmLanguage.json (run: python3 syntaxes/gen.py). The JSON is committed; this
# file exists so the regular expressions can be read and edited without JSON escaping.
import json, pathlib

NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:'[0-9]+)?(?:@[0-9]+(?:\.[0-9]+)*)?"
EXTERNALS = "add|sub|mul|div|mod|neg|eq|ne|lt|le|gt|ge|concat_str|len|to_str|parse_int|split_lines|split_words|print|print_raw|sleep|coin|now|fork|join|llm|llm_chat|read_file|write_file|append_file|list_dir|getenv|http_get|http_post|create_process|fd_write_and_close|fd_read_and_close|range|contains|index|get|keys|values|items|sum|max|min|sorted|reversed|topk|order_by|zip|enumerate|json_parse|json_dump|error"
PRELUDE = "nil|cons|fold|concat|map|filter|length|reverse|is_empty|join_str|fix|sort_by"
NOT_ARGS = "in|and|or|not|if|elif|else|for|while|do|ret|fun"
NUMBER = r"-?(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)|-?[0-9]+"

grammar = {
    "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
    "name": "OPAL",
    "scopeName": "source.opal",
    "fileTypes": ["opal"],
    "patterns": [
        {"include": "#function-binding"},
        {"include": "#label"},
        {"include": "#comment"},
        {"include": "#task"},
        {"include": "#primitive"},
        {"include": "#fstring"},
        {"include": "#string"},
        {"include": "#number"},
        {"include": "#extern"},
        {"include": "#keyword"},
        {"include": "#handle-arg"},
        {"include": "#operator"},
        {"include": "#builtin"},
        {"include": "#call"},
        {"include": "#name"},
        {"include": "#punctuation"},
    ],
    "repository": {
        # Printed core terms (`opal desugar`, `opal step`, the desugared-core view) start each
        # top-level statement with its label: `2.1  rest@2 := …` or `    ret t'88`. The scope is
        # a tag because the default themes leave `entity.name.label` uncoloured.
        "label": {
            "match": r"^([0-9]+(?:\.[0-9]+)*)(?=\s+(?:ret\b|" + NAME + r"\s*:=))",
            "captures": {"1": {"name": "entity.name.tag.label.opal"}},
        },
        "comment": {
            "match": r"(#).*$",
            "name": "comment.line.number-sign.opal",
            "captures": {"1": {"name": "punctuation.definition.comment.opal"}},
        },
        "escape": {
            "patterns": [
                {"match": r"\\(?:[nt\"\\]|u\{[0-9A-Fa-f]{1,6}\})", "name": "constant.character.escape.opal"},
                {"match": r"\\.", "name": "invalid.illegal.escape.opal"},
            ]
        },
        "string": {
            "begin": '"',
            "end": '"|$',
            "name": "string.quoted.double.opal",
            "beginCaptures": {"0": {"name": "punctuation.definition.string.begin.opal"}},
            "endCaptures": {"0": {"name": "punctuation.definition.string.end.opal"}},
            "patterns": [{"include": "#escape"}],
        },
        # `f"{idx}: {value}"`: literal text and `{expr}` holes (`{{` and `}}` are braces).
        "fstring": {
            "begin": r'\b(f)(")',
            "end": '"|$',
            "name": "string.interpolated.opal",
            "beginCaptures": {"1": {"name": "storage.type.string.opal"}, "2": {"name": "punctuation.definition.string.begin.opal"}},
            "endCaptures": {"0": {"name": "punctuation.definition.string.end.opal"}},
            "patterns": [
                {"include": "#escape"},
                {"match": r"\{\{|\}\}", "name": "constant.character.escape.opal"},
                {
                    "begin": r"\{",
                    "end": r"\}",
                    "name": "meta.embedded.expression.opal",
                    "beginCaptures": {"0": {"name": "punctuation.section.embedded.begin.opal"}},
                    "endCaptures": {"0": {"name": "punctuation.section.embedded.end.opal"}},
                    "contentName": "source.opal",
                    "patterns": [{"include": "#string"}, {"include": "#number"}, {"include": "#keyword"}, {"include": "#operator"}, {"include": "#builtin"}, {"include": "#call"}, {"include": "#name"}, {"include": "#punctuation"}],
                },
            ],
        },
        "number": {
            "patterns": [
                {"match": r"(?<![\w.'@])-?(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)\b", "name": "constant.numeric.float.opal"},
                {"match": r"(?<![\w.'@])[0-9]+\b", "name": "constant.numeric.integer.opal"},
            ]
        },
        # `<3>`, `<"Oceania">`, `<-1.5>`, `<print>`: a primitive value written in core notation.
        "primitive": {
            "match": r"(<)(?!<)(" + NUMBER + r'|"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*)(>)(?!>)',
            "name": "meta.primitive.opal",
            "captures": {
                "1": {"name": "punctuation.definition.primitive.begin.opal"},
                "2": {"patterns": [{"include": "#string"}, {"include": "#number-bare"}, {"match": r"[A-Za-z_]\w*", "name": "support.function.external.opal"}]},
                "3": {"name": "punctuation.definition.primitive.end.opal"},
            },
        },
        "number-bare": {"match": NUMBER, "name": "constant.numeric.opal"},
        # `<<cf "foo">>`: a pending task in a printed running term (never valid in source).
        "task": {
            "begin": r"(<<)\s*([A-Za-z_][A-Za-z0-9_]*)?",
            "end": r">>",
            "name": "meta.task.opal",
            "beginCaptures": {"1": {"name": "punctuation.definition.task.begin.opal"}, "2": {"name": "support.function.external.opal"}},
            "endCaptures": {"0": {"name": "punctuation.definition.task.end.opal"}},
            "patterns": [{"include": "#string"}, {"include": "#number"}, {"include": "#primitive"}, {"include": "#builtin"}, {"include": "#name"}, {"include": "#punctuation"}],
        },
        # `name := fun …` and `rec name := fun …`: the name is a function definition.
        "function-binding": {
            "match": r"^\s*(?:([0-9]+(?:\.[0-9]+)*)\s+)?(?:(rec)\s+)?(" + NAME + r")\s*(:=)\s*(?=fun\b)",
            "captures": {
                "1": {"name": "entity.name.tag.label.opal"},
                "2": {"name": "storage.modifier.rec.opal"},
                "3": {"name": "entity.name.function.opal"},
                "4": {"name": "keyword.operator.assignment.opal"},
            },
        },
        "extern": {
            "begin": r"^\s*(extern)\b",
            "end": r"(?=#)|$",
            "beginCaptures": {"1": {"name": "storage.type.extern.opal"}},
            "patterns": [
                # `extern sequential write`: PopPy's ordering class.
                {"match": r"\b(?:sequential|readonly|unordered)\b(?=\s+[A-Za-z_])", "name": "storage.modifier.order.opal"},
                {"match": r"[A-Za-z_][A-Za-z0-9_]*", "name": "entity.name.function.external.opal"},
                {"include": "#punctuation"},
            ],
        },
        "keyword": {
            "patterns": [
                {"match": r"\b(?:if|elif|else|for|in|while|do|ret)\b", "name": "keyword.control.opal"},
                {"match": r"\bfun\b", "name": "storage.type.function.opal"},
                {"match": r"\brec\b", "name": "storage.modifier.rec.opal"},
                {"match": r"\bextern\b", "name": "storage.type.extern.opal"},
                {"match": r"\bprj\b", "name": "keyword.operator.projection.opal"},
                {"match": r"\b(?:and|or|not)\b", "name": "keyword.operator.logical.opal"},
                {"match": r"\b(?:break|continue|return|def|lambda)\b", "name": "invalid.illegal.keyword.opal"},
            ]
        },
        # `&stdout`: a handle threaded through a call (paper §4.3).
        "handle-arg": {
            "match": r"(&)\s*(" + NAME + ")",
            "captures": {"1": {"name": "keyword.operator.thread.opal"}, "2": {"name": "variable.parameter.handle.opal"}},
        },
        "operator": {
            "patterns": [
                {"match": r":=|\+\+=|\+=|-=", "name": "keyword.operator.assignment.opal"},
                {"match": r"==|!=|<=|>=|<|>", "name": "keyword.operator.comparison.opal"},
                {"match": r"\+\+", "name": "keyword.operator.concat.opal"},
                {"match": r"[-+*/%]", "name": "keyword.operator.arithmetic.opal"},
                {"match": r"=(?!=)", "name": "invalid.illegal.assignment.opal"},
            ]
        },
        "builtin": {
            "patterns": [
                {"match": r"\b(?:true|false)\b(?!['@])", "name": "constant.language.boolean.opal"},
                {"match": r"\b(?:stdout|stderr)(?:_[0-9]+)?(?:'[0-9]+)?(?:@[0-9]+(?:\.[0-9]+)*)?(?![\w'@])", "name": "variable.language.handle.opal"},
                {"match": r"\b(?:" + EXTERNALS + r")\b(?!['@])", "name": "support.function.external.opal"},
                {"match": r"\b(?:" + PRELUDE + r")\b(?!['@])", "name": "support.function.prelude.opal"},
            ]
        },
        # Juxtaposition is application: a name followed by an argument atom is being called.
        "call": {
            "match": r"\b(" + NAME + r")(?=[ \t]+(?:(?!(?:" + NOT_ARGS + r")\b)[A-Za-z_]|[(\[\"&0-9]|<(?![<=\s]))|\(\))",
            "captures": {"1": {"name": "entity.name.function.call.opal"}},
        },
        "name": {"match": r"\b" + NAME, "name": "variable.other.opal"},
        "punctuation": {
            "patterns": [
                {"match": r",", "name": "punctuation.separator.comma.opal"},
                {"match": r":", "name": "punctuation.separator.colon.opal"},
                {"match": r"[()]", "name": "punctuation.brackets.round.opal"},
                {"match": r"[\[\]]", "name": "punctuation.brackets.square.opal"},
            ]
        },
    },
}

here = pathlib.Path(__file__).parent
(here / "opal.tmLanguage.json").write_text(json.dumps(grammar, indent=2, ensure_ascii=False) + "\n")

# World files: highlight the OPAL source inside `arg`, `result` and `default` values when a
# TOML grammar (source.toml, e.g. from a TOML extension) is installed.
injection = {
    "scopeName": "opal.world-toml.injection",
    "injectionSelector": "L:source.toml",
    "patterns": [
        {
            # begin/end (not captures): VS Code and vscode-textmate embed another grammar only
            # through a rule's patterns. TOML literal strings cannot contain `'`, so it ends them.
            "begin": r"^\s*(arg|result|default)\s*(=)\s*(')",
            "end": r"'",
            "beginCaptures": {
                "1": {"name": "support.type.property-name.toml"},
                "2": {"name": "punctuation.eq.toml"},
                "3": {"name": "string.quoted.single.literal.toml punctuation.definition.string.begin.toml"},
            },
            "endCaptures": {"0": {"name": "string.quoted.single.literal.toml punctuation.definition.string.end.toml"}},
            "contentName": "meta.embedded.opal",
            "patterns": [{"include": "source.opal"}],
        }
    ],
}
(here / "opal-world.injection.json").write_text(json.dumps(injection, indent=2) + "\n")
