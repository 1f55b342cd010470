" Vim syntax file for OPAL (*.opal), for Vim and Neovim (0.7 has no semantic-token colours).
" The token classes are the VS Code extension's TextMate grammar
" (vscode-extension/syntaxes/gen.py): keywords, strings with escapes, f-strings, numbers,
" comments, labels, operators, primitive literals and tasks. The word lists are the same as
" gen.py's; tests/editor/run.sh checks that they stay so.
if exists('b:current_syntax')
  finish
endif

syn keyword opalConditional if elif else
syn keyword opalRepeat for while do
syn keyword opalKeyword in ret
syn keyword opalFun fun
syn keyword opalStorage rec
syn keyword opalOperatorWord and or not prj
" Python words OPAL does not have: the compiler refuses them with a message (LANGUAGE.md §3).
syn keyword opalNotKeyword break continue return def lambda
syn keyword opalBoolean true false
syn keyword opalHandle stdout stderr
syn keyword opalExternal add sub mul div mod neg eq ne lt le gt ge concat_str len to_str parse_int
syn keyword opalExternal split_lines split_words print sleep coin now fork join llm llm_chat
syn keyword opalExternal print_raw read_file write_file append_file list_dir getenv http_get http_post
syn keyword opalExternal create_process fd_write_and_close fd_read_and_close range index
syn keyword opalExternal get keys values items sum max min sorted reversed topk order_by zip
syn keyword opalExternal enumerate json_parse json_dump error
" `contains` is an argument of `:syn keyword`, so it cannot be one of its words.
syn match opalExternal '\<contains\>'
syn keyword opalPrelude nil cons fold concat map filter length reverse is_empty join_str fix sort_by

" `extern [sequential|readonly|unordered] a, b`: a region, so that the ordering words and the
" declared names are coloured only there (`extern` is not also a keyword: a keyword would win
" over the region's start).
syn region opalExtern matchgroup=opalStorage start='^\s*\zsextern\>' end='$' end='\ze#' contains=opalExternName,opalOrder keepend
syn match opalExternName '\<\h\w*\>' contained
syn keyword opalOrder sequential readonly unordered contained

" `name := fun ...` (also `rec name := fun`, and with a label in printed core terms).
syn match opalFunction "\%(^\s*\%(\d\+\%(\.\d\+\)*\s\+\)\=\%(rec\s\+\)\=\)\@<=\h\w*\%('\d\+\)\=\ze\s*:=\s*fun\>"

syn match opalOperator ':=\|++=\|+=\|-=\|==\|!=\|<=\|>=\|++\|[-+*/%<>&]'
" A lone `=` is not an OPAL operator (bindings are `:=`).
syn match opalBadAssign "\%([:=!<>+-]\)\@1<!=\%(=\)\@!"
" Core notation: a primitive literal `<"Oceania">`, `<3>` (no space inside) and a task `<<f x>>`.
syn match opalPrimitive '<\%(<\)\@!\%(-\=\d\+\%(\.\d\+\)\=\|"\%([^"\\]\|\\.\)*"\|\h\w*\)>\%(>\)\@!'
syn region opalTask start='<<' end='>>' contains=opalString,opalNumber,opalFloat,opalPrimitive oneline

" Numbers, not the digits of a name (`x'2`, `x@1.2`) or of a label's dotted path.
syn match opalNumber "\%([[:alnum:]_.'@]\)\@1<!\d\+\>"
syn match opalFloat "\%([[:alnum:]_.'@]\)\@1<!-\=\%(\d\+\.\d\+\%([eE][+-]\=\d\+\)\=\|\d\+[eE][+-]\=\d\+\)\>"
" A statement's label in printed core terms: `1.2 x := ...` at the start of a line.
syn match opalLabel "^\d\+\%(\.\d\+\)*\ze\s\+\%(ret\>\|\h\w*\%('\d\+\)\=\%(@\d\+\%(\.\d\+\)*\)\=\s*:=\)"

" Strings end at the closing quote or at the end of the line (they cannot span lines).
syn match opalBadEscape '\\.' contained
syn match opalEscape '\\\%([nt"\\]\|u{\x\{1,6}}\)' contained
syn region opalString start='"' skip='\\\\\|\\"' end='"' end='$' contains=opalEscape,opalBadEscape
syn region opalFString start='\<f"' skip='\\\\\|\\"' end='"' end='$' contains=opalEscape,opalBadEscape,opalBraceEscape,opalInterpolation
syn match opalBraceEscape '{{\|}}' contained
syn region opalInterpolation matchgroup=opalInterpolationDelim start='{\%({\)\@!' end='}' contained contains=TOP oneline

syn keyword opalTodo TODO FIXME XXX NOTE contained
syn match opalComment '#.*$' contains=opalTodo,@Spell

hi def link opalConditional Conditional
hi def link opalRepeat Repeat
hi def link opalKeyword Keyword
hi def link opalFun Keyword
hi def link opalStorage StorageClass
hi def link opalOrder StorageClass
hi def link opalOperatorWord Operator
hi def link opalOperator Operator
hi def link opalNotKeyword Error
hi def link opalBadAssign Error
hi def link opalBoolean Boolean
hi def link opalHandle Constant
hi def link opalExternal Function
hi def link opalPrelude Function
hi def link opalExternName Function
hi def link opalFunction Function
hi def link opalPrimitive Special
hi def link opalTask Special
hi def link opalNumber Number
hi def link opalFloat Float
hi def link opalLabel Label
hi def link opalString String
hi def link opalFString String
hi def link opalEscape SpecialChar
hi def link opalBraceEscape SpecialChar
hi def link opalBadEscape Error
hi def link opalInterpolationDelim Delimiter
hi def link opalTodo Todo
hi def link opalComment Comment

let b:current_syntax = 'opal'
