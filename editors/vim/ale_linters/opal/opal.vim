" ALE: OPAL programs are checked by `opal lsp`, the language server: diagnostics, and hover, go to
" definition, completion, rename and formatting through ALE's LSP client. ALE loads this file
" from the runtimepath for buffers whose filetype is `opal`. `g:ale_opal_opal_executable` names
" another binary than the `opal` on PATH.
call ale#Set('opal_opal_executable', 'opal')

" The project root: the nearest folder holding a `.git` (a directory, or a file in a worktree),
" else the file's own folder. The server indexes the `.opal` files under it (workspace symbols).
function! ale_linters#opal#opal#ProjectRoot(buffer) abort
    let l:dir = ale#path#FindNearestDirectory(a:buffer, '.git')
    let l:file = ale#path#FindNearestFile(a:buffer, '.git')
    let l:git = len(l:file) > len(l:dir) ? l:file : l:dir
    return empty(l:git) ? fnamemodify(bufname(a:buffer), ':p:h') : ale#path#Dirname(l:git)
endfunction

call ale#linter#Define('opal', {
\   'name': 'opal',
\   'lsp': 'stdio',
\   'executable': {buffer -> ale#Var(buffer, 'opal_opal_executable')},
\   'command': '%e lsp',
\   'project_root': function('ale_linters#opal#opal#ProjectRoot'),
\})
