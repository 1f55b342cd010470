" Buffer options for OPAL (*.opal).
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1

" Blocks are indented with spaces (a tab in indentation is an error, LANGUAGE.md §1), four of
" them as `opal fmt` writes.
setlocal expandtab shiftwidth=4 softtabstop=4
" `#` comments, continued when a line is broken inside one.
setlocal comments=:# commentstring=#\ %s
setlocal formatoptions-=t formatoptions+=croql
" `gf` on a program's name.
setlocal suffixesadd=.opal

let b:undo_ftplugin = 'setlocal expandtab< shiftwidth< softtabstop< comments< commentstring< formatoptions< suffixesadd<'
