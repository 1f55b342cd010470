" Vim 9 + ALE 3.3 (Debian) against `opal lsp', headless, with only editors/vim and ALE on the
" runtimepath (the vimrc run.sh writes: the lines docs/editors.md gives). Checks the filetype,
" the syntax groups and the ALE linter editors/vim defines; then diagnostics, hover, definition,
" completion, rename and formatting through ALE's LSP client (ALE declares hover contentFormat
" ['plaintext'], issue 19: it showed raw `**`), `shutdown` and `exit` and the server's exit
" status; then re-indents the indentation fixture and types a block. Usage:
"   LSP_FILE=/abs/file.opal LSP_LINE=9 LSP_COL=21 OUT=/tmp/out \
"     vim -N -u VIMRC -i NONE -es -S tests/editor/ale_probe.vim
" LSP_LINE/LSP_COL are 0-based. Writes one line per check to $OUT; `done` last.
let g:lines = []
function! Out(s) abort
  call add(g:lines, a:s)
  call writefile(g:lines, $OUT)
endfunction
execute 'edit ' . fnameescape($LSP_FILE)
call Out('filetype: ' . &filetype)
" The syntax group under the first match of a pattern, and the standard group it links to.
function! Group(pattern) abort
  call cursor(1, 1)
  let [l:l, l:c] = searchpos(a:pattern, 'cW')
  let l:id = synID(l:l, l:c, 1)
  return synIDattr(l:id, 'name') . ' ' . synIDattr(synIDtrans(l:id), 'name')
endfunction
call Out('syntax keyword: ' . Group('\<for\>'))
call Out('syntax comment: ' . Group('^#'))
call Out('syntax string: ' . Group('"Oceania"'))
call Out('syntax number: ' . Group(':= \zs0'))
call Out('syntax function: ' . Group('^shout'))
call Out('ale linters: ' . join(map(copy(ale#linter#Get('opal')), 'v:val.name . " " . v:val.command')))
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
call ale#lsp_linter#StartLSP(bufnr(''), filter(copy(ale#linter#Get('opal')), {_, v -> v.name is# 'opal'})[0], function('OnReady'))
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
" ALE's client, after which the server exits by itself: its status is read from Vim's job of
" ALE's `opal lsp` command.
let g:shutdown = v:null
call ale#lsp_linter#SendRequest(bufnr(''), 'opal', [0, 'shutdown', {}], function('OnAnswer', ['shutdown']))
let s:waited = 0
while !has_key(g:answers, 'shutdown') && s:waited < 100
  sleep 50m
  let s:waited += 1
endwhile
call Out('shutdown: ' . (has_key(g:answers, 'shutdown') ? 'answered' : 'FAIL: no answer'))
let s:jobs = filter(job_info(), {_, j -> join(job_info(j).cmd) =~# 'opal.* lsp'})
call ale#lsp_linter#SendRequest(bufnr(''), 'opal', [1, 'exit', {}])
let s:waited = 0
while !empty(s:jobs) && job_status(s:jobs[0]) is# 'run' && s:waited < 100
  sleep 50m
  let s:waited += 1
endwhile
call Out('exit status: ' . (empty(s:jobs) ? 'no job' : job_status(s:jobs[0]) is# 'run' ? 'still running' : job_info(s:jobs[0]).exitval))
call ale#lsp#StopAll()

" Indentation: `=` over the scrambled fixture gives the fixture; then a block typed line by line.
enew
setfiletype opal
call setline(1, readfile($INDENT_DIR . '/indent_scrambled.txt'))
silent normal! gg=G
let s:expected = readfile($INDENT_DIR . '/indent.opal')
let s:wrong = filter(range(len(s:expected)), {_, i -> getline(i + 1) isnot# s:expected[i]})
call Out('indent fixture: ' . (line('$') == len(s:expected) && empty(s:wrong) ? 'as expected'
\ : 'differs at line(s) ' . join(map(s:wrong, 'v:val + 1'), ', ')))
enew!
setfiletype opal
execute "normal! ifor x in xs:\ry := x\rif y:\rprint y\relse:\rret y\rdone"
call Out('indent typed: ' . (getline(1, '$') ==# ['for x in xs:', '    y := x', '    if y:', '        print y', '    else:', '        ret y', '    done'] ? 'as expected' : string(getline(1, '$'))))
call Out('options: ' . &shiftwidth . ' ' . &expandtab . ' ' . &commentstring)
call Out('done')
qa!
