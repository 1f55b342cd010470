" `.opal` files are OPAL programs. An autocommand rather than `vim.filetype.add`: it works in Vim
" and in every Neovim from 0.7, where `vim.filetype.add` did not take effect for `.opal` and the
" file opened as `conf`.
autocmd BufRead,BufNewFile *.opal setfiletype opal
