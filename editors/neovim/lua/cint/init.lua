--- cint for Neovim: the tree-sitter parser and queries, and the language server cint-ls.
---
---   require('cint').setup({
---     cmd = { 'cint-ls' },                 -- how to start the server
---     settings = { cint = { run = { timeLimit = 30 }, inlayHints = { stepOrdinals = true } } },
---   })
---
--- See `:help cint` (doc/cint.txt) and docs/editors.md of the repository.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local SERVER = 'cint_ls'

---@class cint.Config
M.defaults = {
  --- The server command. `{ 'python3', '-m', 'cint_ls.server' }` works too.
  cmd = { 'cint-ls' },
  --- The debugger (cint-debug, a Debug Adapter Protocol server), registered with nvim-dap
  --- when it is installed (`:help cint-debug`). `{ 'python3', '-m', 'cint_ls.debug' }` works too.
  debug_cmd = { 'cint-debug' },
  --- The workbench (cint-workbench, the interactive session) of `:CintWorkbench`, run in a
  --- terminal with the cint file as its argument (`:help cint-workbench`).
  --- `{ 'python3', '-m', 'cint_ls.workbench' }` works too.
  workbench_cmd = { 'cint-workbench' },
  --- A key of cint buffers that sends the current line (normal mode) or the selection
  --- (visual mode) to the workbench. false: none (`<Plug>(cint-workbench-send)` is there).
  workbench_keymap = '<LocalLeader>w',
  --- Sent to the server (workspace/configuration). Keys under `cint`: targets, fuel,
  --- run = { timeLimit }, inlayHints = { stepOrdinals }, c17 = { compiler, threads },
  --- cluster ('' none, 'local:2', 'tcp://HOST:PORT': docs/cluster.md),
  --- trace = { arrays, arrayLimit }. Unset keys take the server's defaults.
  settings = {},
  --- Files or directories that mark a project root.
  root_markers = { '.git', 'pyproject.toml' },
  --- A shared library exporting `tree_sitter_cint`. nil: found automatically (see M.parser_path).
  parser = nil,
  --- Start tree-sitter highlighting in cint buffers.
  highlight = true,
  --- Refresh code lenses when the server attaches, after every write, and after edits
  --- (when typing pauses for `codelens_delay` ms).
  codelens = true,
  codelens_delay = 500,
  --- Show the server's inlay hints (step ordinals) in cint buffers.
  inlay_hints = false,
  --- The executor of `:CintRun` without an argument: `auto` (the server chooses by
  --- measurement: docs/cli.md), or an executor's name.
  executor = 'auto',
  --- Where a run's output goes: 'split' (a window below, focus stays), 'notify' or 'none'.
  output = 'split',
  --- How a run in progress shows (the server's `$/progress`): 'echo' (the command line,
  --- from the start through each stage to the end), 'notify' (vim.notify at the start
  --- and the end) or 'none'. `require('cint').status()` has it for a statusline anyway.
  progress = 'echo',
}

---@type cint.Config
M.config = vim.deepcopy(M.defaults)

--- The last `cint/runResult` the server sent (a table), or nil.
M.last_result = nil

local has_011 = vim.fn.has('nvim-0.11') == 1

-- ---------------------------------------------------------------- the parser

local plugin_root = vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))))

local function built_parser_path()
  return vim.fs.joinpath(vim.fn.stdpath('data'), 'cint', 'parser', 'cint.so')
end

local function readable(path)
  return path and path ~= '' and uv.fs_stat(path) ~= nil
end

--- The Python interpreter of the configured server: `cmd[1]` when it is Python itself
--- (`python3 -m cint_ls.server`), else the interpreter on the `#!` line of the `cint-ls`
--- script that pip installed, else `python3`.
local function server_python()
  local cmd = M.config.cmd
  if type(cmd) ~= 'table' or not cmd[1] then
    return 'python3'
  end
  if cmd[2] == '-m' then
    return cmd[1]
  end
  local exe = vim.fn.exepath(cmd[1])
  if exe ~= '' then
    local file = io.open(exe, 'r')
    if file then
      local first = file:read('*l') or ''
      file:close()
      local interpreter = first:match('^#!%s*(%S*python[%w%.]*)%s*$')
      if interpreter and vim.fn.executable(interpreter) == 1 then
        return interpreter
      end
    end
  end
  return 'python3'
end

local FIND_BINDING = table.concat({
  'import glob, importlib.util, os',
  "spec = importlib.util.find_spec('cint_ls')",
  "dirs = list(spec.submodule_search_locations) if spec else []",
  "hits = [p for d in dirs for p in sorted(glob.glob(os.path.join(d, 'syntax', '_binding*.so')))]",
  "print(hits[0] if hits else '')",
}, '\n')

local parser_cache ---@type string|false|nil

--- The parser library to load: `config.parser`, else the extension module that pip built
--- for the server's Python (`cint_ls/syntax/_binding*.so`, which exports `tree_sitter_cint`),
--- else the one `:CintBuildParser` compiled. nil when there is none.
function M.parser_path()
  if M.config.parser then
    return M.config.parser
  end
  if parser_cache == nil then
    parser_cache = false
    local ok, result = pcall(function()
      -- -P: never the source tree in the working directory (opened from the root of the
      -- repository, `cint_ls` there has no built extension), always the installed package.
      return vim.system({ server_python(), '-P', '-c', FIND_BINDING }, { text = true }):wait(10000)
    end)
    local found = ok and result.code == 0 and vim.trim(result.stdout or '') or ''
    if readable(found) then
      parser_cache = found
    elseif readable(built_parser_path()) then
      parser_cache = built_parser_path()
    end
  end
  return parser_cache or nil
end

local parser_state ---@type boolean|nil

--- Registers the `cint` language with Neovim's tree-sitter. True when it is available.
function M.register_parser()
  if parser_state ~= nil then
    return parser_state
  end
  -- A parser on 'runtimepath' (parser/cint.so), e.g. installed by nvim-treesitter, first.
  local ok, added = pcall(vim.treesitter.language.add, 'cint')
  if not (ok and added ~= false and added ~= nil) or M.config.parser then
    local path = M.parser_path()
    if not path then
      parser_state = false
      return false
    end
    ok, added = pcall(vim.treesitter.language.add, 'cint', { path = path })
  end
  -- 0.10 returns nothing and throws on failure; 0.11 returns true, or nil and a message.
  parser_state = ok and added ~= false and (added ~= nil or not has_011)
  if not parser_state then
    vim.notify('cint: could not load the tree-sitter parser: ' .. tostring(added), vim.log.levels.WARN)
  end
  M.apply_highlights()
  return parser_state
end

--- Compiles grammar/src/parser.c of the repository this plugin sits in (editors/neovim) into
--- stdpath('data')/cint/parser/cint.so, for when the Python package is not installed.
function M.build_parser()
  local src = vim.fs.normalize(plugin_root .. '/../../grammar/src')
  if not readable(src .. '/parser.c') then
    vim.notify('cint: no grammar/src/parser.c beside this plugin (' .. src .. ')', vim.log.levels.ERROR)
    return nil
  end
  local out = built_parser_path()
  vim.fn.mkdir(vim.fs.dirname(out), 'p')
  local cc = vim.env.CC or 'cc'
  local result = vim.system({ cc, '-shared', '-fPIC', '-O2', '-std=c11', '-I', src, src .. '/parser.c', '-o', out },
    { text = true }):wait()
  if result.code ~= 0 then
    vim.notify('cint: building the parser failed:\n' .. (result.stderr or ''), vim.log.levels.ERROR)
    return nil
  end
  parser_cache, parser_state = nil, nil
  vim.notify('cint: built ' .. out)
  if M.config.parser == nil then
    M.config.parser = out
  end
  M.register_parser()
  return out
end

-- ---------------------------------------------------------------- colours

--- Semantic token kinds of cint-ls that come from the syntax tree alone
--- (cint_ls/ide/tokens.py): tree-sitter's captures say more (`@type.builtin` for `I64`,
--- `@keyword.function`, `@boolean`, ...), so where tree-sitter highlights cint these
--- groups add nothing of their own and the capture's colour stays. Left to Neovim's
--- defaults (`@lsp.type.type` links to `Type`), the default colour scheme drew every type
--- name in the plain foreground once the server's tokens arrived.
local SYNTACTIC_KINDS = { 'keyword', 'type', 'number', 'string', 'operator', 'comment' }

--- Kinds with a modifier, linked to the group of the tree-sitter capture of the same thing.
local LINKS = {
  ['@lsp.typemod.function.defaultLibrary.cint'] = '@function.builtin', -- div_round, sum
  ['@lsp.typemod.enumMember.defaultLibrary.cint'] = '@constant.builtin', -- half_even
}

--- Defines the semantic token groups of cint where nothing defined them (a colour scheme or
--- a user that sets one wins). setup() calls it, the parser's registration, and `ColorScheme`
--- (plugin/cint.lua), since `:colorscheme` clears every group first.
function M.apply_highlights()
  for group, target in pairs(LINKS) do
    api.nvim_set_hl(0, group, { link = target, default = true })
  end
  if M.config.highlight and parser_state then
    for _, kind in ipairs(SYNTACTIC_KINDS) do
      local group = ('@lsp.type.%s.cint'):format(kind)
      -- Defined and empty: no fallback to `@lsp.type.<kind>`, and the capture shows
      -- through. (`{ default = true }` alone leaves the fallback, so a group that a scheme
      -- or the user defined is kept by hand.)
      if next(api.nvim_get_hl(0, { name = group, create = false })) == nil then
        api.nvim_set_hl(0, group, {})
      end
    end
  end
end

-- ---------------------------------------------------------------- run results

local output_buf ---@type integer?

local function field(t, ...)
  if type(t) ~= 'table' then
    return nil
  end
  for _, name in ipairs({ ... }) do
    local v = t[name]
    if v ~= nil and v ~= vim.NIL then
      return v
    end
  end
  return nil
end

--- The lines of a `cint/runResult` (schema: cint_ls/server/schema/run-result.schema.json):
--- the output, then the server's own texts, never a record formatted here: `report` (the
--- fault or host status exactly as `cint run` prints it), `error`, the executor's notes,
--- and the one-line `summary`.
function M.run_lines(result)
  local lines = {}
  local uri = field(result, 'uri')
  local name = uri and vim.fs.basename(vim.uri_to_fname(uri)) or ''
  table.insert(lines, ('── cint run %s on %s'):format(name, field(result, 'executor') or '?'))
  for _, key in ipairs({ 'output', 'report' }) do
    local text = field(result, key)
    if type(text) == 'string' and text ~= '' then
      vim.list_extend(lines, vim.split(text:gsub('\n$', ''), '\n'))
    end
  end
  local err = field(result, 'error')
  if err then
    table.insert(lines, 'error: ' .. tostring(err))
  end
  -- What `auto` decided (the run report's `decision`), when auto chose the executor.
  local report = field(result, 'runReport')
  if field(report, 'chosen') == 'auto' and type(field(report, 'decision')) == 'string' then
    table.insert(lines, field(report, 'decision'))
  end
  for _, note in ipairs(field(result, 'notes') or {}) do
    table.insert(lines, 'note: ' .. tostring(note))
  end
  table.insert(lines, field(result, 'summary') or (field(result, 'executor') or '?'))
  return lines
end

--- Shows the output buffer in a window below, without moving the cursor there.
function M.show_output(enter)
  if not (output_buf and api.nvim_buf_is_valid(output_buf)) then
    output_buf = api.nvim_create_buf(false, true)
    api.nvim_buf_set_name(output_buf, 'cint://output')
    vim.bo[output_buf].bufhidden = 'hide'
  end
  if vim.fn.bufwinid(output_buf) == -1 then
    api.nvim_open_win(output_buf, enter == true, { split = 'below', height = 10 })
  end
  return output_buf
end

local function append_output(lines)
  M.show_output(false)
  local count = api.nvim_buf_line_count(output_buf)
  local empty = count == 1 and api.nvim_buf_get_lines(output_buf, 0, 1, false)[1] == ''
  api.nvim_buf_set_lines(output_buf, empty and 0 or count, -1, false, lines)
  local win = vim.fn.bufwinid(output_buf)
  if win ~= -1 then
    api.nvim_win_set_cursor(win, { api.nvim_buf_line_count(output_buf), 0 })
  end
end

--- The handler of the server's `cint/runResult` notification.
function M.on_run_result(_, result, ctx)
  M.last_result = result
  vim.schedule(function()
    local lines = M.run_lines(result)
    if M.config.output == 'split' then
      append_output(lines)
    elseif M.config.output == 'notify' then
      vim.notify(table.concat(lines, '\n'))
    end
    if field(result, 'report') or field(result, 'error') then
      -- A run stopped by :CintCancel is what was asked for, not an error.
      local cancelled = tostring(field(result, 'error') or ''):find('cancelled', 1, true)
      vim.notify('cint run ' .. tostring(field(result, 'summary') or field(result, 'error')),
        cancelled and vim.log.levels.INFO or vim.log.levels.ERROR)
    end
    api.nvim_exec_autocmds('User', { pattern = 'CintRunResult', data = { result = result, client_id = ctx and ctx.client_id } })
  end)
end

--- The handler of the server's `cint/compareResult` notification (after `:CintCompare`).
function M.on_compare_result(_, result)
  M.last_comparison = result
  vim.schedule(function()
    local lines = { '── cint compare: ' .. tostring(field(result, 'message') or '') }
    for _, run in ipairs(field(result, 'results') or {}) do
      table.insert(lines, '  ' .. tostring(field(run, 'summary') or field(run, 'executor')))
    end
    if M.config.output == 'split' then
      append_output(lines)
    end
    local agree = field(result, 'agree')
    vim.notify(lines[1]:gsub('^── ', ''), agree == false and vim.log.levels.ERROR or vim.log.levels.INFO)
  end)
end

-- ---------------------------------------------------------------- run progress

--- The file of each progress token this plugin sent with a run request.
M._token_files = {}

--- The runs in progress, by token: { what, verb, message, started, client_id }, in
--- `run_order` by start.
local runs, run_order = {}, {}

--- The last progress text shown (begin, a stage, or the end), or nil.
M.last_progress = nil

--- What a run is, from the server's title (`cint: run on cpu-c17`, `cint: run twice() on
--- cpu-c17`, `cint: compare executors`) and the file: `heat_e1.ci on cpu-c17`.
local function run_what(title, message, file)
  local fn, executor = tostring(title or ''):match('^cint: run(.-) on (%S+)$')
  if executor then
    return 'running', ('%s%s on %s'):format(file or 'the program', fn, executor)
  end
  local cfn = tostring(title or ''):match('^cint: compare executors(.*)$')
  if cfn then
    local on = type(message) == 'string' and message ~= '' and (' on ' .. message) or ''
    return 'comparing', ('%s%s%s'):format(file or 'the program', cfn, on)
  end
  local plain = tostring(title or 'a run'):gsub('^cint: ', '')
  return 'running', file and ('%s (%s)'):format(plain, file) or plain
end

local function run_text(run)
  if run.message then
    return ('cint: %s %s: %s…'):format(run.verb, run.what, run.message)
  end
  return ('cint: %s %s…'):format(run.verb, run.what)
end

--- For a statusline: the run in progress (`cint: running heat_e1.ci on cpu-c17:
--- compiling…`, and `(+1)` for each other run), or '' when none is. >lua
---   vim.o.statusline = "%f %{v:lua.require'cint'.status()}"
function M.status()
  local last = runs[run_order[#run_order]]
  if not last then
    return ''
  end
  local text = run_text(last)
  return #run_order > 1 and ('%s (+%d)'):format(text, #run_order - 1) or text
end

local function forget(token)
  runs[token] = nil
  for i, t in ipairs(run_order) do
    if t == token then
      table.remove(run_order, i)
      break
    end
  end
end

local function show_progress(text, kind)
  M.last_progress = text
  local how = M.config.progress
  if how == 'echo' then
    -- One line that fits the command line: a longer one would ask for Enter.
    local room = math.max(vim.v.echospace, 20)
    if vim.fn.strdisplaywidth(text) > room then
      text = vim.fn.strcharpart(text, 0, room - 1) .. '…'
    end
    api.nvim_echo({ { text } }, false, {})
  elseif how == 'notify' and kind ~= 'report' then
    vim.notify(text)
  end
  pcall(vim.cmd.redrawstatus)
end

--- The `LspProgress` autocommand for cint-ls: a Run's `begin`, each stage's `report`, `end`.
function M.on_progress(args)
  local data = args.data or {}
  local client = data.client_id and vim.lsp.get_client_by_id(data.client_id)
  local params = data.params
  if not (client and client.name == SERVER and type(params) == 'table' and type(params.value) == 'table') then
    return
  end
  local token, value = params.token, params.value
  local text
  if value.kind == 'begin' then
    local verb, what = run_what(value.title, value.message, M._token_files[token])
    runs[token] = { verb = verb, what = what, started = uv.hrtime(), client_id = data.client_id }
    table.insert(run_order, token)
    text = run_text(runs[token])
  elseif value.kind == 'report' and runs[token] then
    runs[token].message = type(value.message) == 'string' and value.message ~= '' and value.message or nil
    text = run_text(runs[token])
  elseif value.kind == 'end' and runs[token] then
    local run = runs[token]
    forget(token)
    local seconds = (uv.hrtime() - run.started) / 1e9
    local outcome = type(value.message) == 'string' and value.message ~= '' and value.message or 'done'
    text = ('cint: %s %s: %s (%.1f s)'):format(run.verb == 'comparing' and 'compared' or 'ran', run.what,
      outcome, seconds)
  end
  if text then
    show_progress(text, value.kind)
    api.nvim_exec_autocmds('User', { pattern = 'CintProgress', modeline = false,
      data = { token = token, kind = value.kind, text = text, client_id = data.client_id } })
  end
end

--- Runs of a server that stopped are no longer in progress (LspDetach also comes for a
--- buffer closed while its server goes on: those runs go on too).
local function on_detach()
  vim.schedule(function()
    for _, token in ipairs(vim.list_slice(run_order)) do
      local client = vim.lsp.get_client_by_id(runs[token].client_id)
      if not client or client:is_stopped() then
        forget(token)
      end
    end
    pcall(vim.cmd.redrawstatus)
  end)
end

--- Shows cint-ls's run progress (`LspProgress`, Neovim 0.10+). Called by setup() and by
--- lsp/cint_ls.lua's on_attach; once is enough.
function M.watch_progress()
  local group = api.nvim_create_augroup('cint_progress', { clear = true })
  api.nvim_create_autocmd('LspProgress', { group = group, callback = M.on_progress })
  api.nvim_create_autocmd('LspDetach', { group = group, callback = on_detach })
end

-- ---------------------------------------------------------------- the server

local function client_for(bufnr)
  local get = vim.lsp.get_clients
  local clients = get({ bufnr = bufnr, name = SERVER })
  return clients[1]
end

local REQUEST_CANCELLED = -32800 -- the server's answer to $/cancelRequest

local next_token = 0

local function execute(command, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local client = client_for(bufnr)
  if not client then
    vim.notify('cint: cint-ls is not attached to this buffer', vim.log.levels.ERROR)
    return
  end
  local function handler(err)
    if err and err.code == REQUEST_CANCELLED then
      vim.notify(('cint: %s cancelled'):format(command.command))
    elseif err then
      vim.notify(('cint: %s failed: %s'):format(command.command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
  end
  -- A progress token of our own (the server uses the request's `workDoneToken`), so that
  -- the progress of this run can name its file: the server's title names only the executor.
  next_token = next_token + 1
  local token = ('cint-nvim-%d-%d'):format(uv.os_getpid(), next_token)
  local uri = (command.arguments or {})[1]
  M._token_files[token] = type(uri) == 'string' and vim.fs.basename(vim.uri_to_fname(uri)) or nil
  local params = { command = command.command, arguments = command.arguments, workDoneToken = token }
  local function done(err, result, ctx)
    M._token_files[token] = nil
    handler(err, result, ctx)
  end
  if has_011 then
    client:request('workspace/executeCommand', params, done, bufnr)
  else
    client.request('workspace/executeCommand', params, done, bufnr)
  end
end

--- The client-side handler of the server's `cint.run` and `cint.compareExecutors` (what a
--- code lens runs): the same request as |:CintRun|, with the progress token that names the file.
function M.execute_command(command, ctx)
  local uri = (command.arguments or {})[1]
  local bufnr = type(uri) == 'string' and vim.uri_to_bufnr(uri) or (ctx and ctx.bufnr)
  execute({ command = command.command, arguments = command.arguments }, bufnr)
end

--- `:CintRun [executor]`: runs the buffer's module (the server runs the text in the editor).
function M.run(executor, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  execute({ title = 'Run', command = 'cint.run', arguments = { vim.uri_from_bufnr(bufnr), executor or M.config.executor } },
    bufnr)
end

--- The trace of a run result (its `trace`: the lines of `cint run --trace`), or nil.
local function trace_of(result)
  local trace = field(result, 'trace')
  if type(trace) ~= 'table' or #trace == 0 then
    return nil
  end
  for _, line in ipairs(trace) do
    if type(line) ~= 'table' then
      return nil
    end
  end
  return trace
end

--- `:CintTrace`: the page of the last run's trace (the server's `cint.tracePage` [uri,
--- trace]: a self-contained HTML page, docs/trace.md) written to a temporary file and
--- opened with `vim.ui.open` (the system's browser). `result` (optional) is a run result
--- instead of the last one; `done(path, err)` (optional) is called when it is written.
function M.trace(result, done)
  done = done or function() end
  result = result or M.last_result
  local function fail(message)
    vim.notify('cint: ' .. message, vim.log.levels.ERROR)
    done(nil, message)
  end
  if type(result) ~= 'table' then
    return fail('no run yet: :CintRun first, then :CintTrace')
  end
  local uri, trace = field(result, 'uri'), trace_of(result)
  if type(uri) ~= 'string' then
    return fail('the run result has no document URI')
  end
  if not trace then
    return fail('the run result has no trace (a server older than the trace, or a malformed result)')
  end
  local bufnr = vim.uri_to_bufnr(uri)
  local client = client_for(bufnr) or vim.lsp.get_clients({ name = SERVER })[1]
  if not client then
    return fail('cint-ls is not running')
  end
  local params = { command = 'cint.tracePage', arguments = { uri, trace } }
  local function handler(err, answer)
    if err then
      return fail('cint.tracePage failed: ' .. (err.message or vim.inspect(err)))
    end
    local html = type(answer) == 'table' and answer.html or nil
    if type(html) ~= 'string' or not html:find('<html', 1, true) then
      return fail("the server's cint.tracePage gave no page")
    end
    local name = vim.fs.basename(vim.uri_to_fname(uri)):gsub('%.ci$', '')
    local path = vim.fn.tempname() .. '-' .. name:gsub('[^%w_.-]', '_') .. '-trace.html'
    local file, open_err = io.open(path, 'w')
    if not file then
      return fail('cannot write ' .. path .. ': ' .. tostring(open_err))
    end
    file:write(html)
    file:close()
    M.last_trace_page = path
    local _, why = vim.ui.open(path)
    if why then
      vim.notify(('cint: the trace page is %s (%s)'):format(path, why), vim.log.levels.WARN)
    else
      vim.notify('cint: opened the trace page ' .. path)
    end
    done(path, nil)
  end
  if has_011 then
    client:request('workspace/executeCommand', params, function(err, answer)
      vim.schedule(function() handler(err, answer) end)
    end, bufnr)
  else
    client.request('workspace/executeCommand', params, function(err, answer)
      vim.schedule(function() handler(err, answer) end)
    end, bufnr)
  end
end

local KNOWN_TARGETS = { ['cpu-sir-interp'] = true, ['cpu-c17'] = true, ['gpu-cuda'] = true }

--- The command `cint.setTargets` [uri, targets] of a gpu-cuda refusal's quick fix (the
--- server's code action): the client's `cint.targets` setting becomes `targets`, sent to
--- the server with workspace/didChangeConfiguration. Malformed arguments are an error
--- message, and nothing changes. Returns the targets set, or nil and the reason.
function M.set_targets(command, ctx)
  local args = type(command) == 'table' and command.arguments or nil
  local function fail(message)
    message = 'cint.setTargets: ' .. message
    vim.notify(message, vim.log.levels.ERROR)
    return nil, message
  end
  if type(args) ~= 'table' or #args ~= 2 then
    return fail(('expected [uri, targets], got %s'):format(vim.inspect(args)))
  end
  local uri, targets = args[1], args[2]
  if type(uri) ~= 'string' or not uri:match('^%a[%w+.-]*:') then
    return fail('the first argument must be a document URI')
  end
  if type(targets) ~= 'table' or #targets == 0 or not vim.islist(targets) then
    return fail('the second argument must be a non-empty list of executor names')
  end
  local seen, list = {}, {}
  for _, name in ipairs(targets) do
    if type(name) ~= 'string' or not KNOWN_TARGETS[name] then
      return fail(('unknown executor %s (known: cpu-sir-interp, cpu-c17, gpu-cuda)'):format(vim.inspect(name)))
    end
    if not seen[name] then
      seen[name] = true
      table.insert(list, name)
    end
  end
  local client = ctx and ctx.client_id and vim.lsp.get_client_by_id(ctx.client_id)
    or vim.lsp.get_clients({ name = SERVER })[1]
  if not client then
    return fail('cint-ls is not running')
  end
  local settings = vim.deepcopy(client.settings or (client.config and client.config.settings) or {})
  settings.cint = type(settings.cint) == 'table' and settings.cint or {}
  settings.cint.targets = list
  client.settings = settings
  if client.config then
    client.config.settings = settings
  end
  if M.config.settings == nil or type(M.config.settings) == 'table' then
    M.config.settings = vim.deepcopy(settings) -- a restart and setup{} keep it
  end
  local params = { settings = settings }
  if has_011 then
    client:notify('workspace/didChangeConfiguration', params)
  else
    client.notify('workspace/didChangeConfiguration', params)
  end
  vim.notify('cint: cint.targets is now ' .. table.concat(list, ', '))
  return list
end

--- The client capabilities that make the server offer `cint.setTargets` fixes, and, once
--- setup() has registered cint-debug with nvim-dap, a Debug lens beside each Run lens.
M.capabilities = { experimental = { cint = { setTargets = true } } }

--- The command `cint.debug` [uri] or [uri, function] of a Debug lens: a debug session of
--- cint-debug through nvim-dap.
function M.debug(command)
  local ok, dap = pcall(require, 'dap')
  local args = command and command.arguments or {}
  if not ok then
    vim.notify('cint: the Debug lens needs nvim-dap (:help cint-debug)', vim.log.levels.WARN)
    return
  end
  local entry = type(args[2]) == 'string' and args[2] or nil
  local program = args[1] and vim.uri_to_fname(args[1]) or api.nvim_buf_get_name(0)
  dap.run({ type = 'cint', request = 'launch', name = entry and ('Debug ' .. entry) or 'Debug the file',
            program = program, entry = entry })
end

--- `:CintCompare`: runs the module on every executor and compares the results.
function M.compare(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  execute({ title = 'Compare executors', command = 'cint.compareExecutors', arguments = { vim.uri_from_bufnr(bufnr) } },
    bufnr)
end

--- `:CintCancel`: cancels every run in flight (the `workspace/executeCommand` requests of
--- cint-ls, from :CintRun, :CintCompare or a code lens) with `$/cancelRequest`; the server
--- kills the run's process. Returns how many were cancelled.
function M.cancel()
  local count = 0
  for _, client in ipairs(vim.lsp.get_clients({ name = SERVER })) do
    for id, request in pairs(client.requests or {}) do
      if request.type == 'pending' and request.method == 'workspace/executeCommand' then
        if has_011 then
          client:cancel_request(id)
        else
          client.cancel_request(id)
        end
        count = count + 1
      end
    end
  end
  if count == 0 then
    vim.notify('cint: no run in progress')
  else
    vim.notify(('cint: cancelling %d run%s'):format(count, count == 1 and '' or 's'))
  end
  return count
end

local function root_dir(bufnr)
  local name = api.nvim_buf_get_name(bufnr)
  return vim.fs.root(bufnr, M.config.root_markers) or (name ~= '' and vim.fs.dirname(name)) or uv.cwd()
end

local function server_config()
  return {
    cmd = M.config.cmd,
    filetypes = { 'cint' },
    root_markers = M.config.root_markers,
    settings = M.config.settings,
    handlers = { ['cint/runResult'] = M.on_run_result, ['cint/compareResult'] = M.on_compare_result },
    commands = { ['cint.setTargets'] = M.set_targets, ['cint.run'] = M.execute_command,
                 ['cint.compareExecutors'] = M.execute_command, ['cint.debug'] = M.debug },
    capabilities = vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), M.capabilities),
  }
end

--- `:CintRestart`: stops cint-ls and starts it again for every cint buffer.
function M.restart()
  local ids = vim.tbl_map(function(c)
    return c.id
  end, vim.lsp.get_clients({ name = SERVER }))
  vim.lsp.stop_client(ids)
  vim.wait(5000, function()
    return vim.iter(ids):all(function(id)
      return vim.lsp.get_client_by_id(id) == nil
    end)
  end, 50)
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == 'cint' then
      api.nvim_exec_autocmds('FileType', { buffer = buf, modeline = false })
    end
  end
end

local function on_attach(bufnr)
  if M.config.codelens and vim.lsp.codelens.refresh then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
    local group = api.nvim_create_augroup('cint_codelens_' .. bufnr, { clear = true })
    api.nvim_create_autocmd('BufWritePost', {
      group = group,
      buffer = bufnr,
      callback = function()
        vim.lsp.codelens.refresh({ bufnr = bufnr })
      end,
    })
    -- Lenses move with the lines: refresh once typing pauses, so that a lens is found
    -- where it now is without saving first.
    local timer = uv.new_timer()
    api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
      group = group,
      buffer = bufnr,
      callback = function()
        timer:stop()
        timer:start(M.config.codelens_delay, 0, vim.schedule_wrap(function()
          if api.nvim_buf_is_valid(bufnr) then
            vim.lsp.codelens.refresh({ bufnr = bufnr })
          end
        end))
      end,
    })
    api.nvim_create_autocmd('BufWipeout', {
      group = group,
      buffer = bufnr,
      callback = function()
        timer:stop()
        timer:close()
      end,
    })
  end
  if M.config.inlay_hints and vim.lsp.inlay_hint then
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
  end
end

-- ---------------------------------------------------------------- the workbench

--- The workbench that `:CintWorkbench` started: its terminal buffer, its job, and the
--- input sent while it was starting (sent once its prompt is up).
local workbench = { buf = nil, job = nil, pending = nil }

--- How long a new workbench gets to show its prompt before input is sent to it (input
--- sent earlier is not lost, but the terminal echoes it above the banner).
local WORKBENCH_STARTUP_MS = 500
local WORKBENCH_HEIGHT = 12

local function workbench_alive()
  return workbench.job ~= nil and workbench.buf ~= nil and api.nvim_buf_is_valid(workbench.buf)
    and vim.fn.jobwait({ workbench.job }, 0)[1] == -1
end

--- The job id (a channel) and the terminal buffer of the workbench that runs, or nil.
function M.workbench_job()
  if workbench_alive() then
    return workbench.job, workbench.buf
  end
  return nil
end

--- The file of a cint buffer that is on disk (its absolute path), or nil.
local function workbench_file(bufnr)
  if vim.bo[bufnr].filetype ~= 'cint' or vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  local name = api.nvim_buf_get_name(bufnr)
  if name == '' or not readable(name) then
    return nil
  end
  return vim.fn.fnamemodify(name, ':p')
end

local function show_workbench(enter)
  local win = vim.fn.bufwinid(workbench.buf)
  if win == -1 then
    win = api.nvim_open_win(workbench.buf, enter, { split = 'below', height = WORKBENCH_HEIGHT })
  elseif enter then
    api.nvim_set_current_win(win)
  end
  return win
end

--- `:CintWorkbench`: the workbench in a terminal window below: `workbench_cmd` with the
--- buffer's file as argument when it is a cint file on disk (the session `:load`s it), in
--- the file's folder. A workbench still running is shown again instead. `enter` (default
--- true): the cursor goes to the terminal, in Terminal mode. Returns the job id and the
--- terminal buffer, or nil.
function M.workbench(bufnr, enter)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  enter = enter ~= false
  if workbench_alive() then
    show_workbench(enter)
    if enter then
      vim.cmd.startinsert()
    end
    return workbench.job, workbench.buf
  end
  local cmd = M.config.workbench_cmd
  cmd = vim.deepcopy(type(cmd) == 'string' and { cmd } or cmd or {})
  if not cmd[1] or vim.fn.executable(cmd[1]) ~= 1 then
    vim.notify(('cint: the workbench command %s is not found (option workbench_cmd, :help cint-workbench)')
      :format(vim.inspect(cmd)), vim.log.levels.ERROR)
    return nil
  end
  local file = workbench_file(bufnr)
  if file then
    if vim.bo[bufnr].modified then
      vim.notify('cint: the workbench loads ' .. file .. ' as saved (the buffer has unsaved changes)',
        vim.log.levels.WARN)
    end
    table.insert(cmd, file)
  end
  local previous = api.nvim_get_current_win()
  local buf = api.nvim_create_buf(true, false)
  local win = api.nvim_open_win(buf, true, { split = 'below', height = WORKBENCH_HEIGHT })
  local opts = { cwd = file and vim.fs.dirname(file) or nil }
  local ok, job
  if has_011 then
    ok, job = pcall(vim.fn.jobstart, cmd, vim.tbl_extend('force', opts, { term = true }))
  else
    ok, job = pcall(vim.fn.termopen, cmd, opts)
  end
  if not ok or type(job) ~= 'number' or job <= 0 then
    api.nvim_win_close(win, true)
    pcall(api.nvim_buf_delete, buf, { force = true })
    vim.notify('cint: could not start the workbench: ' .. tostring(job), vim.log.levels.ERROR)
    return nil
  end
  workbench.buf, workbench.job, workbench.pending = buf, job, {}
  vim.b[buf].cint_workbench = true
  vim.defer_fn(function()
    local pending = workbench.job == job and workbench.pending or nil
    if pending then
      workbench.pending = nil
      for _, text in ipairs(pending) do
        vim.fn.chansend(job, text)
      end
    end
  end, WORKBENCH_STARTUP_MS)
  if enter then
    vim.cmd.startinsert()
  elseif api.nvim_win_is_valid(previous) then
    api.nvim_set_current_win(previous)
  end
  return job, buf
end

--- Sends `lines` (a list, or a string) to the workbench, each followed by a line break, as
--- if typed at its prompt (an input goes on while a brace, bracket or parenthesis is open);
--- the workbench is started first (for the current buffer) when none runs, and the cursor
--- stays where it is. Returns true when they were sent.
function M.workbench_send(lines)
  if type(lines) == 'string' then
    lines = vim.split((lines:gsub('\n$', '')), '\n', { plain = true })
  end
  if workbench_alive() then
    show_workbench(false)
  elseif not M.workbench(0, false) then
    return false
  end
  local text = table.concat(lines, '\n') .. '\n'
  if workbench.pending then
    table.insert(workbench.pending, text) -- the workbench is starting: after its prompt
  else
    vim.fn.chansend(workbench.job, text)
  end
  -- A terminal window follows the output while its cursor is on the last line.
  for _, win in ipairs(vim.fn.win_findbuf(workbench.buf)) do
    pcall(api.nvim_win_set_cursor, win, { api.nvim_buf_line_count(workbench.buf), 0 })
  end
  return true
end

--- `:[range]CintWorkbenchSend`: the lines `line1` to `line2` (default: the cursor's) of the
--- current buffer to the workbench.
function M.workbench_send_range(line1, line2)
  local line = api.nvim_win_get_cursor(0)[1]
  return M.workbench_send(api.nvim_buf_get_lines(0, (line1 or line) - 1, line2 or line1 or line, false))
end

--- `<Plug>(cint-workbench-send)`: in Visual mode the selection (characterwise, linewise or
--- blockwise) to the workbench, leaving Visual mode; in Normal mode the cursor's line.
function M.workbench_send_selection()
  local mode = vim.fn.mode()
  if mode ~= 'v' and mode ~= 'V' and mode ~= '\22' then
    return M.workbench_send({ api.nvim_get_current_line() })
  end
  local lines
  if vim.fn.exists('*getregion') == 1 then
    lines = vim.fn.getregion(vim.fn.getpos('v'), vim.fn.getpos('.'), { type = mode })
  else
    local a, b = vim.fn.line('v'), vim.fn.line('.')
    lines = api.nvim_buf_get_lines(0, math.min(a, b) - 1, math.max(a, b), false)
  end
  api.nvim_feedkeys(api.nvim_replace_termcodes('<Esc>', true, false, true), 'nx', false)
  return M.workbench_send(lines)
end

-- ---------------------------------------------------------------- setup

--- The running clients get the new settings: a client keeps the settings it was started
--- with, so `setup{settings=...}` again would otherwise never reach the server.
local function push_settings()
  for _, client in ipairs(vim.lsp.get_clients({ name = SERVER })) do
    client.settings = M.config.settings
    if client.config then
      client.config.settings = M.config.settings
    end
    local params = { settings = M.config.settings }
    if has_011 then
      client:notify('workspace/didChangeConfiguration', params)
    else
      client.notify('workspace/didChangeConfiguration', params)
    end
  end
end

--- `:help cint` works without a plugin manager: the help tags are made when missing.
local function ensure_helptags()
  local doc = vim.fs.joinpath(plugin_root, 'doc')
  if uv.fs_stat(vim.fs.joinpath(doc, 'tags')) == nil and vim.fn.filewritable(doc) == 2 then
    pcall(vim.cmd.helptags, vim.fn.fnameescape(doc))
  end
end

--- Register cint-debug with nvim-dap: `dap.adapters.cint` runs `config.debug_cmd`, and
--- `dap.configurations.cint` gets "Debug the file" (kept where the user has set it). Called
--- by setup(); call it again if nvim-dap is loaded after. Returns whether nvim-dap was there.
function M.register_dap()
  local ok, dap = pcall(require, 'dap')
  if not ok or type(dap) ~= 'table' then
    return false
  end
  local cmd = (M.config or M.defaults).debug_cmd
  if type(cmd) == 'string' then
    cmd = { cmd }
  end
  dap.adapters = dap.adapters or {}
  dap.adapters.cint = { type = 'executable', command = cmd[1], args = vim.list_slice(cmd, 2), options = { detached = false } }
  dap.configurations = dap.configurations or {}
  if dap.configurations.cint == nil then
    dap.configurations.cint = {
      { type = 'cint', request = 'launch', name = 'Debug the file', program = '${file}', stopOnEntry = false },
      { type = 'cint', request = 'launch', name = 'Debug the file, stopping on entry', program = '${file}',
        stopOnEntry = true },
      -- cpu-c17 runs it to its first fault; the reference debugs the faulting work-item.
      { type = 'cint', request = 'launch', name = 'Debug the file to its first fault (through cpu-c17)',
        program = '${file}', stopOnFault = true },
    }
  end
  return true
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  if opts and opts.cmd then
    M.config.cmd = opts.cmd -- a list: replace it, never merge it by index
  end
  if opts and opts.settings then
    M.config.settings = opts.settings
  end
  if type(M.config.cmd) == 'string' then
    M.config.cmd = { M.config.cmd }
  end
  if opts and opts.debug_cmd then
    M.config.debug_cmd = opts.debug_cmd
  end
  if opts and opts.workbench_cmd then
    M.config.workbench_cmd = opts.workbench_cmd
  end
  M.capabilities.experimental.cint.debug = M.register_dap() or nil
  parser_cache, parser_state = nil, nil
  ensure_helptags()
  push_settings()
  M.watch_progress()
  M.apply_highlights()

  vim.filetype.add({ extension = { ci = 'cint' } })
  local group = api.nvim_create_augroup('cint', { clear = true })

  api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'cint',
    callback = function(args)
      vim.bo[args.buf].commentstring = '// %s'
      local key = M.config.workbench_keymap
      if type(key) == 'string' and key ~= '' then
        vim.keymap.set({ 'n', 'x' }, key, M.workbench_send_selection,
          { buffer = args.buf, desc = 'cint: send the line or the selection to the workbench' })
      end
      if M.config.highlight and M.register_parser() then
        pcall(vim.treesitter.start, args.buf, 'cint')
      end
      if not has_011 then
        vim.lsp.start(vim.tbl_extend('force', server_config(), { name = SERVER, root_dir = root_dir(args.buf) }),
          { bufnr = args.buf })
      end
    end,
  })

  api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(args)
      local client = vim.lsp.get_client_by_id(args.data.client_id)
      if client and client.name == SERVER then
        on_attach(args.buf)
      end
    end,
  })

  if has_011 then
    vim.lsp.config(SERVER, server_config())
    vim.lsp.enable(SERVER)
  end

  -- Buffers that were already open when setup ran.
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) and vim.bo[buf].filetype == 'cint' then
      api.nvim_exec_autocmds('FileType', { buffer = buf, modeline = false })
    end
  end
end

return M
