-- The plugin with no call of its setup: only editors/neovim on 'runtimepath' and
-- vim.lsp.enable('cint_ls') (lsp/cint_ls.lua). Records what the editor saw in
-- $CINT_TEST_OUT; tests/editors/test_neovim_enable.py asserts on it.
local out = { steps = {}, errors = {} }
local function step(name) table.insert(out.steps, name) end
local function finish()
  local f = assert(io.open(vim.env.CINT_TEST_OUT, 'w'))
  f:write(vim.json.encode(out))
  f:close()
  vim.cmd('qall!')
end

local ok, err = pcall(function()
  vim.lsp.enable('cint_ls')
  step('enabled')
  local dir = vim.env.CINT_TEST_DIR

  vim.cmd.edit(dir .. '/same_c5010.ci')
  local c5010 = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[c5010].filetype
  local got = vim.wait(30000, function()
    for _, d in ipairs(vim.diagnostic.get(c5010)) do
      if d.code == 'C5010' then
        out.c5010 = { lnum = d.lnum, col = d.col, severity = d.severity, source = d.source }
        return true
      end
    end
    return false
  end, 50)
  step(got and 'diagnostic' or 'no diagnostic')
  local clients = vim.lsp.get_clients({ bufnr = c5010 })
  out.clients = vim.tbl_map(function(c) return c.name end, clients)
  out.cmd = clients[1] and clients[1].config.cmd or nil

  vim.cmd.edit(dir .. '/heat_e1.ci')
  local heat = vim.api.nvim_get_current_buf()
  out.highlighter = vim.treesitter.highlighter.active[heat] ~= nil
  vim.treesitter.get_parser(heat, 'cint'):parse(true)
  -- The captures at 13:33 (the `*` of `kn * lap`) and at 13:9 (`I64`).
  local function captures(row, col)
    return vim.tbl_map(function(c) return c.capture end, vim.treesitter.get_captures_at_pos(heat, row, col))
  end
  out.star = captures(12, 32)
  out.i64 = captures(12, 8)
  -- The hover of the server on the same `*`.
  vim.wait(20000, function() return #vim.lsp.get_clients({ bufnr = heat }) > 0 end, 50)
  local answers = vim.lsp.buf_request_sync(heat, 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(heat) }, position = { line = 12, character = 32 } }, 20000)
  for _, answer in pairs(answers or {}) do
    if answer.result and answer.result.contents then
      out.hover = vim.inspect(answer.result.contents)
    end
  end
  step('done')
end)
if not ok then out.errors.scenario = tostring(err) end
finish()
