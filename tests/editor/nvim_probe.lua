-- Headless Neovim (0.7.x) LSP probe.
-- Adapted from ../shared/reference/editor-e2e/lsp_probe.lua (verified there). Usage:
--   LSP_CMD='/path/to/server arg' LSP_FILE=/abs/file LSP_FT=python \
--   LSP_LINE=3 LSP_COL=7 nvim --headless --clean -u NONE -c 'luafile tests/editor/nvim_probe.lua'
-- LSP_LINE/LSP_COL are 0-based (LSP coordinates) for hover + definition.
-- Exits 0 on success (diagnostics received, hover+definition answered), 1 otherwise.
local function out(s) io.stdout:write(s .. "\n") end
local function fail(msg) out("FAIL: " .. msg); vim.cmd("cquit 1") end

local cmd = vim.split(os.getenv("LSP_CMD"), " ", { trimempty = true })
local file = os.getenv("LSP_FILE")
local line = tonumber(os.getenv("LSP_LINE") or "0")
local col = tonumber(os.getenv("LSP_COL") or "0")
local timeout = tonumber(os.getenv("LSP_TIMEOUT_MS") or "15000")

-- Capture pushed diagnostics ourselves (also keep default handler so vim.diagnostic works).
local got_diags = nil
local default_pd = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
  if result and result.uri == vim.uri_from_fname(file) then got_diags = result.diagnostics end
  return default_pd(err, result, ctx, config)
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
local bufnr = vim.api.nvim_get_current_buf()
if os.getenv("LSP_FT") then vim.bo[bufnr].filetype = os.getenv("LSP_FT") end

local client_id = vim.lsp.start_client({
  name = "probe",
  cmd = cmd,
  root_dir = vim.fn.fnamemodify(file, ":h"),
  on_exit = function(code, signal) io.stderr:write(("server exited code=%s signal=%s\n"):format(code, signal)) end,
})
if not client_id then fail("start_client returned nil") end
vim.lsp.buf_attach_client(bufnr, client_id)

local ok = vim.wait(timeout, function()
  local c = vim.lsp.get_client_by_id(client_id)
  return c ~= nil and c.initialized
end, 50)
if not ok then fail("server did not initialize") end
out("initialized: " .. vim.lsp.get_client_by_id(client_id).name)

if not vim.wait(timeout, function() return got_diags ~= nil end, 50) then fail("no publishDiagnostics") end
out("diagnostics: " .. #got_diags)
for _, d in ipairs(got_diags) do
  out(("  %d:%d %s (%s)"):format(d.range.start.line, d.range.start.character, d.message, d.source or ""))
end

local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = line, character = col } }
local function req(method)
  local res, err = vim.lsp.buf_request_sync(bufnr, method, params, timeout)
  if not res then fail(method .. " error: " .. tostring(err)) end
  for _, r in pairs(res) do
    if r.err then fail(method .. " returned error: " .. vim.inspect(r.err)) end
    return r.result
  end
end

local hover = req("textDocument/hover")
local hv = hover and hover.contents
if type(hv) == "table" and hv.value then hv = hv.value end
out("hover: " .. (type(hv) == "string" and hv:gsub("\n", "\\n") or vim.inspect(hv)))

local def = req("textDocument/definition")
if def and def.uri then def = { def } end
if def and def[1] and (def[1].targetUri or def[1].uri) then
  local l = def[1]
  local r = l.range or l.targetSelectionRange
  out(("definition: %s %d:%d"):format(vim.fn.fnamemodify(vim.uri_to_fname(l.uri or l.targetUri), ":t"), r.start.line, r.start.character))
else
  out("definition: " .. vim.inspect(def))
end

-- Orderly shutdown: shutdown request + exit notification, then wait for the process to go.
local client = vim.lsp.get_client_by_id(client_id)
client.stop()
vim.wait(5000, function() return client.is_stopped() end, 50)
out("stopped: " .. tostring(client.is_stopped()))
vim.cmd("qall!")
