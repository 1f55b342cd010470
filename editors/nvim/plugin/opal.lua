-- OPAL for Neovim 0.7 and later: start `opal lsp` for every `opal` buffer. Detection, syntax,
-- indentation and buffer options are the Vim runtime files beside this one (the same as
-- editors/vim's). `vim.g.opal_lsp = false` (before this runs) leaves the server off.
if vim.g.loaded_opal or vim.g.opal_lsp == false then
  return
end
vim.g.loaded_opal = true

if vim.fn.has('nvim-0.8') == 1 then
  -- ftdetect/opal.vim covers 0.7, where this did not take effect for `.opal`.
  vim.filetype.add({ extension = { opal = 'opal' } })
end

-- 0.11 and later: the configuration is lsp/opal.lua, which the user's `vim.lsp.config` extends.
if vim.lsp.config and vim.lsp.enable then
  vim.lsp.enable('opal')
  return
end

-- The folder of the nearest `.git` (a directory, or a file in a worktree), else the file's own
-- folder: the server indexes the `.opal` files under its root for workspace symbols.
local function root_dir(file)
  local dir = vim.fn.fnamemodify(file, ':p:h')
  local git = vim.fn.finddir('.git', dir .. ';')
  local git_file = vim.fn.findfile('.git', dir .. ';')
  if #git_file > #git then
    git = git_file
  end
  if git == '' then
    return dir
  end
  return vim.fn.fnamemodify((vim.fn.fnamemodify(git, ':p'):gsub('/$', '')), ':h')
end

local clients = {} -- root folder -> client id, for 0.7 (0.8's vim.lsp.start reuses by itself)

vim.api.nvim_create_autocmd('FileType', {
  pattern = 'opal',
  group = vim.api.nvim_create_augroup('opal_lsp', { clear = true }),
  callback = function(args)
    local file = vim.api.nvim_buf_get_name(args.buf)
    -- The server needs a file to name (a URI); help and scratch buffers have none.
    if file == '' or vim.bo[args.buf].buftype ~= '' then
      return
    end
    local config = { name = 'opal', cmd = vim.g.opal_lsp_cmd or { 'opal', 'lsp' }, root_dir = root_dir(file) }
    if vim.lsp.start then
      vim.lsp.start(config, { bufnr = args.buf })
      return
    end
    -- 0.7: `start_client` attaches to no buffer by itself; one client per root.
    local id = clients[config.root_dir]
    local client = id and vim.lsp.get_client_by_id(id)
    if not client or client.is_stopped() then
      id = vim.lsp.start_client(config)
      clients[config.root_dir] = id
    end
    if id then
      vim.lsp.buf_attach_client(args.buf, id)
    end
  end,
})
