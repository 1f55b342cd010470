" Vim 9 + ALE 3.3 (Debian) against `opal lsp', headless. ALE declares hover contentFormat
" ['plaintext'] (issue 19: it showed raw `**`). Diagnostics, hover, definition, completion, rename
" and formatting through ALE's LSP client, then `shutdown` and `exit`. Usage:
"   OPAL=/path/opal LSP_FILE=/abs/file.opal LSP_LINE=9 LSP_COL=21 OUT=/tmp/out \
"     vim -N -u NONE -i NONE -es -S tests/editor/ale_probe.vim
" LSP_LINE/LSP_COL are 0-based. Writes one line per check to $OUT; `done` last.
set nocompatible
let &runtimepath = '/usr/share/vim-ale,' . &runtimepath
runtime plugin/ale.vim
let g:ale_lint_on_enter = 1
let g:lines = []
function! Out(s) abort
  call add(g:lines, a:s)
  call writefile(g:lines, $OUT)
endfunction
call ale#linter#Define('opal', {
\ 'name': 'opal', 'lsp': 'stdio', 'executable': $OPAL,
\ 'command': 'sh -c ''"$0" lsp; echo $? > "$1"'' %e ' . shellescape($OUT . '.exit'),
\ 'project_root': fnamemodify($LSP_FILE, ':h'),
\})
let g:ale_linters = {'opal': ['opal']}
execute 'edit ' . fnameescape($LSP_FILE)
set filetype=opal
let g:answers = {}
let g:diagnostics = v:null
" The handlers get the whole response.
function! OnAnswer(name, r) abort
  if has_key(a:r, 'error')
    call Out('FAIL: ' . a:name . ' answered an error: ' . string(a:r.error))
  endif
  let g:answers[a:name] = get(a:r, 'result', v:null)
endfunction
" Every message ALE's client reads from the server: the diagnostics it publishes.
function! OnMessage(conn_id, message) abort
  if get(a:message, 'method', '') is# 'textDocument/publishDiagnostics'
    let g:diagnostics = len(a:message.params.diagnostics)
  endif
endfunction
" The first diagnostics may come before this callback is in place: a change (the same text, as
" ALE sends it after an edit) makes the server publish them again.
function! OnReady(linter, details) abort
  call ale#lsp#RegisterCallback(a:details.connection_id, function('OnMessage'))
  call ale#lsp#Send(a:details.connection_id, ale#lsp#message#DidChange(bufnr('')))
endfunction
call ale#lsp_linter#StartLSP(bufnr(''), filter(ale#linter#GetAll(ale#linter#ResolveFiletype(&filetype)), {_, v -> v.name is# 'opal'})[0], function('OnReady'))
let s:doc = {'uri': ale#path#ToFileURI($LSP_FILE)}
let s:pos = {'textDocument': s:doc, 'position': {'line': str2nr($LSP_LINE), 'character': str2nr($LSP_COL)}}
let s:requests = {
\ 'hover': ['textDocument/hover', s:pos],
\ 'definition': ['textDocument/definition', s:pos],
\ 'completion': ['textDocument/completion', s:pos],
\ 'rename': ['textDocument/rename', extend(copy(s:pos), {'newName': 'yell'})],
\ 'formatting': ['textDocument/formatting', {'textDocument': s:doc, 'options': {'tabSize': 4, 'insertSpaces': v:true}}],
\}
for [s:name, s:req] in items(s:requests)
  call ale#lsp_linter#SendRequest(bufnr(''), 'opal', [0, s:req[0], s:req[1]], function('OnAnswer', [s:name]))
endfor
let s:waited = 0
while (len(g:answers) < len(s:requests) || g:diagnostics is v:null) && s:waited < 200
  sleep 50m
  let s:waited += 1
endwhile
for s:name in keys(s:requests)
  if !has_key(g:answers, s:name)
    call Out('FAIL: no ' . s:name)
    qa!
  endif
endfor
call Out('diagnostics: ' . (g:diagnostics is v:null ? 'none' : g:diagnostics))
let g:hover = g:answers.hover
call Out('hover kind: ' . get(get(g:hover, 'contents', {}), 'kind', '?'))
call Out('hover: ' . substitute(get(get(g:hover, 'contents', {}), 'value', ''), "\n", '\\n', 'g'))
let s:def = type(g:answers.definition) == v:t_list ? g:answers.definition[0] : g:answers.definition
call Out('definition: ' . fnamemodify(get(s:def, 'uri', '?'), ':t') . ' ' . get(get(get(s:def, 'range', {}), 'start', {}), 'line', -1))
let s:items = type(g:answers.completion) == v:t_list ? g:answers.completion : get(g:answers.completion, 'items', [])
call Out('completion: ' . len(s:items) . ' items')
let s:edits = 0
for s:list in values(get(g:answers.rename, 'changes', {}))
  let s:edits += len(s:list)
endfor
call Out('rename: ' . s:edits . ' edit(s)')
call Out('formatting: ' . len(g:answers.formatting is v:null ? [] : g:answers.formatting) . ' edit(s)')
" ALE stops a server by ending its job; a clean shutdown is `shutdown` then `exit` through
" ALE's client, after which the server exits by itself (its status is written by the wrapper
" command above).
let g:shutdown = v:null
call ale#lsp_linter#SendRequest(bufnr(''), 'opal', [0, 'shutdown', {}], function('OnAnswer', ['shutdown']))
let s:waited = 0
while !has_key(g:answers, 'shutdown') && s:waited < 100
  sleep 50m
  let s:waited += 1
endwhile
call Out('shutdown: ' . (has_key(g:answers, 'shutdown') ? 'answered' : 'FAIL: no answer'))
call ale#lsp_linter#SendRequest(bufnr(''), 'opal', [1, 'exit', {}])
let s:waited = 0
while !filereadable($OUT . '.exit') && s:waited < 100
  sleep 50m
  let s:waited += 1
endwhile
call Out('exit status: ' . (filereadable($OUT . '.exit') ? join(readfile($OUT . '.exit')) : 'none'))
call ale#lsp#StopAll()
call Out('done')
qa!
