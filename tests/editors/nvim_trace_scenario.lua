-- :CintRun (default auto), :CintTrace and the cint.setTargets quick fix in a headless
-- Neovim with the plugin's setup{}. vim.ui.open is replaced by a recorder here only (a
-- test has no browser to open). Records what it saw in $CINT_TEST_OUT; asserted by
-- tests/editors/test_neovim_trace.py.
local out = { steps = {}, errors = {}, notes = {} }
local function step(name) table.insert(out.steps, name) end
local function finish()
  local f = assert(io.open(vim.env.CINT_TEST_OUT, 'w'))
  f:write(vim.json.encode(out))
  f:close()
  vim.cmd('qall!')
end

local opened = {}
vim.ui.open = function(path)
  table.insert(opened, path)
  return { wait = function() return { code = 0 } end }, nil
end
local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(out.notes, { msg = tostring(msg), level = level })
  -- headless, an ERROR message inside :command is raised as an error: record it only
  if level ~= vim.log.levels.ERROR then
    return notify(msg, level, opts)
  end
end

local ok, err = pcall(function()
  local cint = require('cint')
  cint.setup({ output = 'split' })
  local dir = vim.env.CINT_TEST_DIR

  vim.cmd.edit(dir .. '/heat_e1.ci')
  local heat = vim.api.nvim_get_current_buf()
  assert(vim.wait(30000, function() return #vim.lsp.get_clients({ bufnr = heat, name = 'cint_ls' }) > 0 end, 50),
    'no cint_ls client')
  local client = vim.lsp.get_clients({ bufnr = heat, name = 'cint_ls' })[1]
  out.capability = vim.tbl_get(client.config.capabilities or {}, 'experimental', 'cint', 'setTargets')

  -- :CintTrace before any run: an error, nothing opened.
  cint.last_result = nil
  vim.cmd('CintTrace')
  out.before_run = { opened = #opened, note = out.notes[#out.notes] }

  -- :CintRun with no argument: the executor `auto`.
  vim.cmd('CintRun')
  assert(vim.wait(60000, function() return cint.last_result ~= nil end, 50), 'no run result')
  local result = cint.last_result
  out.run = { executor = result.executor, chosen = vim.tbl_get(result, 'runReport', 'chosen'),
              decision = vim.tbl_get(result, 'runReport', 'decision'), has_trace = type(result.trace) == 'table' }
  vim.wait(200)
  local output = vim.fn.bufnr('cint://output')
  out.output_lines = output ~= -1 and vim.api.nvim_buf_get_lines(output, 0, -1, false) or {}

  -- :CintTrace: the page written to a temporary file and opened with vim.ui.open.
  cint.last_trace_page = nil
  vim.cmd('CintTrace')
  assert(vim.wait(30000, function() return #opened > 0 end, 50), 'vim.ui.open was not called')
  out.opened = opened[1]
  out.last_trace_page = cint.last_trace_page
  local f = io.open(opened[1], 'r')
  out.page = f and f:read('*a') or nil
  if f then f:close() end

  -- A malformed result: an error, nothing opened.
  local done_err
  cint.trace({ uri = result.uri, trace = {} }, function(_, e) done_err = e end)
  out.bad_trace = { err = done_err, opened = #opened }
  cint.trace({ trace = result.trace }, function(_, e) done_err = e end)
  out.no_uri = done_err
  step('trace')

  -- The quick fix of a gpu-cuda refusal: the server's code action, this client's command.
  vim.cmd.edit(dir .. '/ops_kernel.ci')
  local ops = vim.api.nvim_get_current_buf()
  local function refusals()
    return vim.tbl_filter(function(d) return d.code == 'C9100' end, vim.diagnostic.get(ops))
  end
  assert(vim.wait(30000, function() return #refusals() > 0 end, 50), 'no refusal diagnostics')
  out.refusals_before = #refusals()
  local answers = vim.lsp.buf_request_sync(ops, 'textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(ops) },
    range = { start = { line = 0, character = 0 }, ['end'] = { line = vim.api.nvim_buf_line_count(ops), character = 0 } },
    context = { diagnostics = {} },
  }, 20000)
  local fix
  for _, answer in pairs(answers or {}) do
    for _, action in ipairs(answer.result or {}) do
      if action.command and action.command.command == 'cint.setTargets' then
        fix = action
      end
    end
  end
  assert(fix, 'no cint.setTargets action')
  out.fix = { title = fix.title, arguments = fix.command.arguments }
  client:exec_cmd(fix.command, { bufnr = ops })
  out.settings_targets = vim.tbl_get(client.settings, 'cint', 'targets')
  out.refusals_cleared = vim.wait(30000, function() return #refusals() == 0 end, 50)

  -- Malformed arguments: refused with a message, the settings unchanged.
  local bad = {}
  for _, args in ipairs({ {}, { 'file:///x.ci' }, { 'file:///x.ci', {} }, { 'file:///x.ci', { 'tpu' } },
                          { 42, { 'cpu-c17' } }, { 'file:///x.ci', 'cpu-c17' } }) do
    local set, why = cint.set_targets({ command = 'cint.setTargets', arguments = args }, { client_id = client.id })
    table.insert(bad, { set = set, why = why })
  end
  out.bad_targets = bad
  out.settings_after_bad = vim.tbl_get(client.settings, 'cint', 'targets')
  step('done')
end)
if not ok then out.errors.scenario = tostring(err) end
finish()
