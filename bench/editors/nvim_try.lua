--   cd RECIPE_FOLDER && OUT_FILE=out.txt RECIPELINT_PYTHON=.venv/bin/python nvim --headless -u NONE -c "luafile bench/editors/nvim_try.lua"
-- Neovim 0.7 (Debian 12's): vim.lsp.start arrived in 0.8, so the client is started with
-- start_client and attached by hand; then diagnostics on open, a change, and the code actions.
local python = os.getenv("RECIPELINT_PYTHON") or "python3"
local out = {}
local function say(s) table.insert(out, s) end
vim.cmd("edit run.sh")
local buf = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({ name = "recipelint", cmd = { python, "-m", "recipelint", "server" }, root_dir = vim.fn.getcwd() })
vim.lsp.buf_attach_client(buf, client_id)
local function count() return #vim.diagnostic.get(buf) end
vim.wait(30000, function() return count() > 0 end, 50)
say("after open: " .. count() .. " diagnostics")
for _, d in ipairs(vim.diagnostic.get(buf)) do say(string.format("  %d:%d severity %d %s %s", d.lnum + 1, d.col + 1, d.severity, d.code or "", d.message:sub(1, 60))) end
local before = count()
local line = vim.fn.search("^num_workers=")
vim.api.nvim_buf_set_lines(buf, line - 1, line, false, { "num_workers=1" })
vim.wait(30000, function() return count() ~= before end, 50)
say("after num_workers=1: " .. count() .. " diagnostics")
local client = vim.lsp.get_client_by_id(client_id)
local result = client.request_sync("textDocument/codeAction", {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = { start = { line = 0, character = 0 }, ["end"] = { line = 100, character = 0 } },
  context = { diagnostics = {} },
}, 10000, buf)
local titles = {}
for _, a in ipairs(result and result.result or {}) do table.insert(titles, a.title) end
say("code actions: " .. table.concat(titles, " | "))
local hover = client.request_sync("textDocument/hover", { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line - 1, character = 12 } }, 10000, buf)
say("hover: " .. ((hover and hover.result and hover.result.contents.value) or "none"):gsub("\n", " / "):sub(1, 120))
vim.fn.writefile(out, os.getenv("OUT_FILE"))
vim.lsp.stop_client(client_id)
vim.wait(3000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
vim.cmd("qall!")
