" Indentation for OPAL (*.opal), for Vim and Neovim.
"
" OPAL is indentation-based like Python (LANGUAGE.md): a line ending with `:` opens a block, the
" block is the lines indented deeper, `ret` is the last item of its block, newlines inside
" brackets are ignored. So:
"   * after a line ending with `:` the line is one level deeper (a block's first line);
"   * inside brackets a line is one level deeper than the line that opened them, a line that
"     starts with the closing bracket at that line's level;
"   * `elif`/`else` line up with an `if` or `elif` above, the `while` that ends a `do:` block
"     with its `do`;
"   * any other line may stay in its block or leave it for an enclosing one, which only the
"     writer knows: its indentation is kept when it is one of those levels (`=` re-indents
"     pasted code without changing its meaning), else it takes the nearest level below it; a
"     new line starts in the innermost block (after `ret`, the one outside it).
" The Emacs mode (editors/emacs/opal-mode.el) implements the same rules.
if exists('b:did_indent')
  finish
endif
let b:did_indent = 1

setlocal autoindent
setlocal indentexpr=GetOpalIndent(v:lnum)
" Re-indent as `else`, `elif` or a `:` is typed, not on `#` (comments keep their block's level).
setlocal indentkeys=!^F,o,O,<:>,=elif,=else
let b:undo_indent = 'setlocal autoindent< indentexpr< indentkeys<'

if exists('*GetOpalIndent')
  finish
endif

" The code of a line: its comment removed and its strings emptied, so that a `#`, a `:` or a
" bracket inside a string does not count.
function! s:Code(lnum) abort
  let l:line = substitute(getline(a:lnum), '"\%([^"\\]\|\\.\)*\%("\|$\)', '""', 'g')
  return substitute(l:line, '#.*$', '', '')
endfunction

" Brackets opened minus brackets closed.
function! s:Balance(code) abort
  return len(substitute(a:code, '[^([{]', '', 'g')) - len(substitute(a:code, '[^)\]}]', '', 'g'))
endfunction

" The previous line with code (blank lines and comment lines do not decide anything), 0 if none.
function! s:PrevCode(lnum) abort
  let l:n = prevnonblank(a:lnum - 1)
  while l:n > 0 && getline(l:n) =~# '^\s*#'
    let l:n = prevnonblank(l:n - 1)
  endwhile
  return l:n
endfunction

function! s:FirstWord(lnum) abort
  return matchstr(getline(a:lnum), '^\s*\zs\h\w*')
endfunction

" For the code line p: [opener, start]. opener is the line of the innermost bracket still open
" after p (0 when none); start is the first line of the statement p ends (p itself unless p
" closes brackets opened above it). Looks back 50 code lines at most, as Vim's Python indent.
function! s:Brackets(p) abort
  let l:sum = 0
  let l:start = 0
  let l:k = a:p
  let l:steps = 0
  while l:k > 0 && l:steps < 50
    let l:sum += s:Balance(s:Code(l:k))
    if l:sum > 0
      return [l:k, 0]
    endif
    if l:sum == 0 && l:start == 0
      let l:start = l:k
    endif
    let l:k = s:PrevCode(l:k)
    let l:steps += 1
  endwhile
  return [0, l:start ? l:start : a:p]
endfunction

" The levels a line after the statement starting at `start` may take, innermost first, each
" with the first word of the line that made it: the statement's own level (an `if` with a
" one-line body may be followed by `else`), then the block openers around it.
function! s:Levels(start) abort
  let l:min = indent(a:start)
  let l:levels = [[l:min, s:FirstWord(a:start)]]
  let l:k = s:PrevCode(a:start)
  while l:k > 0 && l:min > 0
    if indent(l:k) < l:min && s:Code(l:k) =~# ':\s*$'
      let l:min = indent(l:k)
      call add(l:levels, [l:min, s:FirstWord(l:k)])
    endif
    let l:k = s:PrevCode(l:k)
  endwhile
  return l:levels
endfunction

function! GetOpalIndent(lnum) abort
  let l:p = s:PrevCode(a:lnum)
  if l:p == 0
    return 0
  endif
  let l:line = getline(a:lnum)
  let [l:opener, l:start] = s:Brackets(l:p)
  if l:opener > 0
    return indent(l:opener) + (l:line =~# '^\s*[)\]}]' ? 0 : shiftwidth())
  endif
  if s:Code(l:p) =~# ':\s*$'
    return indent(l:start) + shiftwidth()
  endif
  let l:levels = s:Levels(l:start)
  if getline(l:start) =~# '^\s*ret\>' && len(l:levels) > 1
    call remove(l:levels, 0)
  endif
  if l:line =~# '^\s*\%(elif\|else\)\>'
    let l:want = ['if', 'elif']
  elseif l:line =~# '^\s*while\>' && s:Code(a:lnum) !~# ':\s*$'
    let l:want = ['do']
  else
    let l:want = []
  endif
  let l:cands = []
  for [l:level, l:word] in l:levels
    if empty(l:want) || index(l:want, l:word) >= 0
      call add(l:cands, l:level)
    endif
  endfor
  if empty(l:cands)
    let l:cands = map(copy(l:levels), 'v:val[0]')
  endif
  " A new (blank) line: the innermost block.
  if l:line =~# '^\s*$'
    return l:cands[0]
  endif
  let l:cur = indent(a:lnum)
  for l:level in l:cands
    if l:level <= l:cur
      return l:level
    endif
  endfor
  return l:cands[-1]
endfunction
