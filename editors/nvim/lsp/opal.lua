-- `opal lsp` for Neovim 0.11's `vim.lsp.config`, which reads `lsp/<name>.lua` from the
-- runtimepath; a `vim.lsp.config('opal', { ... })` in your init overrides any field.
return {
  cmd = { 'opal', 'lsp' },
  filetypes = { 'opal' },
  root_markers = { '.git' },
}
