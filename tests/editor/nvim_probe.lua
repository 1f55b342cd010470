-- Headless Neovim (0.7 and later) with editors/nvim on the runtimepath and nothing else: the file
-- must open as `opal`, with the plugin's syntax groups, the plugin's client attached by itself
-- and its diagnostics arrived; then hover and definition, the indentation fixture, and a clean
-- stop of the server. Usage (INIT holds only `set runtimepath^=.../editors/nvim`; plugin files
-- do not load with `-u NONE`):
--   LSP_LINE=9 LSP_COL=21 INDENT_DIR=tests/editor \
--     nvim --headless -u INIT -i NONE FILE -c 'luafile tests/editor/nvim_probe.lua'
-- LSP_LINE/LSP_COL are 0-based (LSP coordinates) for hover and definition. One line per check;
-- exits 1 on a failure.
local function out(s) io.stdout:write(s .. "\n") end
local function fail(msg) out("FAIL: " .. msg); vim.cmd("cquit 1") end

local line = tonumber(os.getenv("LSP_LINE") or "0")
local col = tonumber(os.getenv("LSP_COL") or "0")
local timeout = tonumber(os.getenv("LSP_TIMEOUT_MS") or "15000")
local bufnr = vim.api.nvim_get_current_buf()

out("filetype: " .. vim.bo[bufnr].filetype)
-- The syntax group under the first match of a pattern, and the standard group it links to.
local function group(pattern)
  vim.fn.cursor(1, 1)
  local pos = vim.fn.searchpos(pattern, "cW")
  local id = vim.fn.synID(pos[1], pos[2], 1)
  return vim.fn.synIDattr(id, "name") .. " " .. vim.fn.synIDattr(vim.fn.synIDtrans(id), "name")
end
out("syntax keyword: " .. group([[\<for\>]]))
out("syntax comment: " .. group([[^#]]))
out("syntax string: " .. group([["Oceania"]]))

-- The clients attached to the buffer: 0.7 has only buf_get_clients, 0.11 only get_clients.
local function clients()
  if vim.lsp.get_clients then return vim.lsp.get_clients({ bufnr = bufnr }) end
  return vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
end
if not vim.wait(timeout, function() local c = clients()[1]; return c ~= nil and c.initialized end, 50) then
  fail("no client attached and initialized")
end
local client = clients()[1]
out(("client: %s (%s) root %s"):format(client.name, table.concat(client.config.cmd, " "),
  vim.fn.fnamemodify(client.config.root_dir or "?", ":t")))

if not vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) > 0 end, 50) then fail("no diagnostics") end
local diags = vim.diagnostic.get(bufnr)
out("diagnostics: " .. #diags)
for _, d in ipairs(diags) do out(("  %d:%d %s (%s)"):format(d.lnum, d.col, d.message:gsub("\n", "\\n"), d.source or "")) end

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

-- The Run lens (issue 33): Neovim runs it with workspace/executeCommand, the server runs the
-- program and says how it went in window/showMessage.
local shown = nil
vim.lsp.handlers["window/showMessage"] = function(_, result) shown = result.message end
vim.lsp.codelens.refresh()
if not vim.wait(timeout, function() return #vim.lsp.codelens.get(bufnr) > 0 end, 50) then fail("no code lenses") end
local lenses = vim.lsp.codelens.get(bufnr)
out(("lenses: %d, %s %s"):format(#lenses, lenses[1].command.title, lenses[1].command.command))
vim.api.nvim_win_set_cursor(0, { lenses[1].range.start.line + 1, 0 })
vim.lsp.codelens.run()
if not vim.wait(timeout, function() return shown ~= nil end, 50) then fail("the Run lens said nothing") end
out("lens ran: " .. shown)

-- Orderly shutdown: shutdown request + exit notification, then wait for the process to go.
client.stop()
vim.wait(5000, function() return client.is_stopped() end, 50)
out("stopped: " .. tostring(client.is_stopped()))

-- Indentation: `=` over the scrambled fixture gives the fixture; then a block typed line by line.
-- Scratch buffers (no file, so the plugin starts no server for them).
local dir = os.getenv("INDENT_DIR")
local expected = vim.fn.readfile(dir .. "/indent.opal")
vim.cmd("enew")
vim.bo.filetype = "opal"
vim.api.nvim_buf_set_lines(0, 0, -1, false, vim.fn.readfile(dir .. "/indent_scrambled.txt"))
vim.cmd("silent normal! gg=G")
local got = vim.api.nvim_buf_get_lines(0, 0, -1, false)
local wrong = {}
for i = 1, math.max(#got, #expected) do
  if got[i] ~= expected[i] then table.insert(wrong, i) end
end
out("indent fixture: " .. (#wrong == 0 and "as expected" or ("differs at line(s) " .. table.concat(wrong, ", "))))
vim.cmd("enew!")
vim.bo.filetype = "opal"
vim.cmd([[execute "normal! ifor x in xs:\ry := x\rif y:\rprint y\relse:\rret y\rdone"]])
got = vim.api.nvim_buf_get_lines(0, 0, -1, false)
local typed = { "for x in xs:", "    y := x", "    if y:", "        print y", "    else:", "        ret y", "    done" }
out("indent typed: " .. (vim.deep_equal(got, typed) and "as expected" or vim.inspect(got)))
out(("options: %d %s %s"):format(vim.bo.shiftwidth, tostring(vim.bo.expandtab), vim.bo.commentstring))
vim.cmd("qall!")
