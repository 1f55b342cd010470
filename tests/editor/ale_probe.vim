" Vim 9 + ALE 3.3 (Debian) against `opal lsp', headless. ALE declares hover contentFormat
" ['plaintext'] (issue 19: it showed raw `**`). Usage:
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
\ 'name': 'opal', 'lsp': 'stdio', 'executable': $OPAL, 'command': '%e lsp',
\ 'project_root': fnamemodify($LSP_FILE, ':h'),
\})
let g:ale_linters = {'opal': ['opal']}
execute 'edit ' . fnameescape($LSP_FILE)
set filetype=opal
let g:hover = v:null
let g:definition = v:null
" The handlers get the whole response.
function! OnHover(r) abort
  let g:hover = get(a:r, 'result', {})
endfunction
function! OnDefinition(r) abort
  let g:definition = get(a:r, 'result', {})
endfunction
let s:pos = {'textDocument': {'uri': ale#path#ToFileURI($LSP_FILE)}, 'position': {'line': str2nr($LSP_LINE), 'character': str2nr($LSP_COL)}}
call ale#lsp_linter#SendRequest(bufnr(''), 'opal', [0, 'textDocument/hover', s:pos], function('OnHover'))
call ale#lsp_linter#SendRequest(bufnr(''), 'opal', [0, 'textDocument/definition', s:pos], function('OnDefinition'))
let s:waited = 0
while (g:hover is v:null || g:definition is v:null) && s:waited < 200
  sleep 50m
  let s:waited += 1
endwhile
if g:hover is v:null
  call Out('FAIL: no hover')
  qa!
endif
call Out('hover kind: ' . get(get(g:hover, 'contents', {}), 'kind', '?'))
call Out('hover: ' . substitute(get(get(g:hover, 'contents', {}), 'value', ''), "\n", '\\n', 'g'))
let s:def = type(g:definition) == v:t_list ? g:definition[0] : g:definition
call Out('definition: ' . fnamemodify(get(s:def, 'uri', '?'), ':t') . ' ' . get(get(get(s:def, 'range', {}), 'start', {}), 'line', -1))
" (Diagnostics: ALE does not lint in `vim -es`, so they are not checked here.)
call ale#lsp#StopAll()
call Out('done')
qa!
