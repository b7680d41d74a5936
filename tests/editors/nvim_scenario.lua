-- The Neovim end-to-end scenario of tests/editors/test_neovim.py, run by a real headless
-- Neovim with the plugin of editors/neovim on 'runtimepath':
--
--   nvim --headless --clean --cmd 'set rtp^=editors/neovim' -c 'luafile nvim_scenario.lua'
--
-- Environment: CINT_TEST_DIR (a folder with same_c5010.ci and heat_e1.ci), CINT_LS_CMD (the
-- server command as a JSON list), CINT_TEST_OUT (where to write the results as JSON).
-- It only observes and records; the pytest side makes the assertions, so a failure shows
-- everything that was seen. It always quits, also after an error.

local results = { steps = {} }
local TIMEOUT = tonumber(vim.env.CINT_TEST_TIMEOUT_MS or '') or 60000

results.errors = {}

local function step(name)
  table.insert(results.steps, name)
end

-- Runs one part of the scenario; an error is recorded and the next part still runs.
local function section(name, fn)
  step(name)
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then
    results.errors[name] = err
  end
  return ok
end

local function wait(what, ms, predicate)
  local ok = vim.wait(ms or TIMEOUT, predicate, 50)
  if not ok then
    error('timed out waiting for ' .. what, 2)
  end
end

local function cint_client(buf)
  return vim.lsp.get_clients({ bufnr = buf, name = 'cint_ls' })[1]
end

local function diagnostics(buf)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(list, {
      lnum = d.lnum,
      col = d.col,
      code = d.code ~= nil and tostring(d.code) or vim.NIL,
      message = d.message,
      source = d.source or vim.NIL,
      severity = d.severity,
    })
  end
  return list
end

local function has_code(buf, code)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if tostring(d.code) == code then
      return true
    end
  end
  return false
end

local function hover_text(result)
  if not result then
    return vim.NIL
  end
  local contents = result.contents
  if type(contents) == 'string' then
    return contents
  elseif contents.value then
    return contents.value
  end
  local parts = {}
  for _, c in ipairs(contents) do
    table.insert(parts, type(c) == 'string' and c or c.value)
  end
  return table.concat(parts, '\n')
end

local function captures_at(buf, row, col)
  local names = {}
  for _, c in ipairs(vim.treesitter.get_captures_at_pos(buf, row, col)) do
    table.insert(names, c.capture)
  end
  return names
end

-- Processes (Linux /proc): { pid, ppid, state, cmdline } of every process.
local function processes()
  local list = {}
  for name in vim.fs.dir('/proc') do
    if name:match('^%d+$') then
      local stat = io.open('/proc/' .. name .. '/stat')
      local cmd = io.open('/proc/' .. name .. '/cmdline')
      if stat and cmd then
        local s = stat:read('*a') or ''
        local state, ppid = s:match('%) (%S) (%d+)')
        local comm = s:match('^%d+ %((.*)%) ') or ''
        table.insert(list, { pid = tonumber(name), ppid = tonumber(ppid), state = state, comm = comm,
                             cmdline = (cmd:read('*a') or ''):gsub('%z', ' ') })
      end
      if stat then stat:close() end
      if cmd then cmd:close() end
    end
  end
  return list
end

-- The live run processes (`cint_ls.running.isolated`) of the server whose command line has `mark`;
-- not the spare the server keeps started for the next Run while it waits (`--spare`, until it
-- is named `cint-run`).
local function run_children(mark)
  local servers, found = {}, {}
  local all = processes()
  for _, p in ipairs(all) do
    if p.cmdline:find(mark, 1, true) and not p.cmdline:find('cint_ls.running.isolated', 1, true) then
      servers[p.pid] = true
    end
  end
  for _, p in ipairs(all) do
    local waiting = p.cmdline:find('--spare', 1, true) and p.comm ~= 'cint-run'
    if servers[p.ppid] and p.state ~= 'Z' and p.cmdline:find('cint_ls.running.isolated', 1, true) and not waiting then
      table.insert(found, p.pid)
    end
  end
  return found
end

local function scenario()
  local dir = assert(vim.env.CINT_TEST_DIR, 'CINT_TEST_DIR')
  local cmd = vim.json.decode((assert(vim.env.CINT_LS_CMD, 'CINT_LS_CMD')))
  results.nvim = tostring(vim.version())
  vim.o.swapfile = false

  -- Count code lens refreshes (the plugin looks the function up at each call).
  results.codelens_refreshes = 0
  local refresh = vim.lsp.codelens.refresh
  vim.lsp.codelens.refresh = function(...)
    results.codelens_refreshes = results.codelens_refreshes + 1
    return refresh(...)
  end

  results.commands = {}
  for _, name in ipairs({ 'CintRun', 'CintCompare', 'CintCancel', 'CintOutput', 'CintRestart', 'CintBuildParser' }) do
    results.commands[name] = vim.fn.exists(':' .. name) == 2
  end

  local cint = require('cint')
  cint.setup({ cmd = cmd })

  -- What the command line showed of runs in progress (the plugin's nvim_echo calls), and
  -- the plugin's `User CintProgress` events.
  results.progress_echoes, results.progress_events = {}, {}
  local echo = vim.api.nvim_echo
  vim.api.nvim_echo = function(chunks, history, opts)
    local text = table.concat(vim.tbl_map(function(c) return c[1] end, chunks))
    if text:match('^cint: ') then
      table.insert(results.progress_echoes, text)
    end
    return echo(chunks, history, opts)
  end
  vim.api.nvim_create_autocmd('User', {
    pattern = 'CintProgress',
    callback = function(args)
      table.insert(results.progress_events, { kind = args.data.kind, text = args.data.text, status = cint.status() })
    end,
  })
  results.parser_path = cint.parser_path() or vim.NIL

  -- 1. same_c5010.ci: the C5010 diagnostic.
  local c5010, client
  if not section('open same_c5010.ci', function()
    vim.cmd.edit(vim.fn.fnameescape(dir .. '/same_c5010.ci'))
    c5010 = vim.api.nvim_get_current_buf()
    results.filetype = vim.bo[c5010].filetype
    wait('cint-ls to attach', TIMEOUT, function()
      return cint_client(c5010) ~= nil and cint_client(c5010).initialized
    end)
    client = cint_client(c5010)
    results.server_name = client.name
    results.execute_commands = (client.server_capabilities.executeCommandProvider or {}).commands or vim.NIL
  end) then
    return
  end
  section('C5010 diagnostic', function()
    wait('the C5010 diagnostic', TIMEOUT, function()
      return has_code(c5010, 'C5010')
    end)
  end)
  results.c5010_diagnostics = diagnostics(c5010)

  -- C5010's related locations: in the diagnostic (user_data.lsp), in the float that
  -- vim.diagnostic.open_float shows (Neovim 0.12 lists them), and `gf` on one there goes to it.
  section('C5010 related location', function()
    local found
    for _, d in ipairs(vim.diagnostic.get(c5010)) do
      if tostring(d.code) == 'C5010' then
        found = d
      end
    end
    assert(found, 'no C5010 diagnostic')
    results.c5010_related = {}
    for _, info in ipairs(vim.tbl_get(found, 'user_data', 'lsp', 'relatedInformation') or {}) do
      table.insert(results.c5010_related, {
        file = vim.fs.basename(vim.uri_to_fname(info.location.uri)),
        line = info.location.range.start.line,
        character = info.location.range.start.character,
        message = info.message,
      })
    end
    vim.api.nvim_set_current_buf(c5010)
    vim.api.nvim_win_set_cursor(0, { found.lnum + 1, found.col })
    local float_buf, float_win = vim.diagnostic.open_float({ scope = 'cursor' })
    assert(float_buf and float_win, 'no diagnostic float')
    local lines = vim.api.nvim_buf_get_lines(float_buf, 0, -1, false)
    results.c5010_float = lines
    local row
    for i, text in ipairs(lines) do
      if text:find('passed for `u` (in)', 1, true) and not text:find('the same view is passed', 1, true) then
        row = i
      end
    end
    if row then
      vim.api.nvim_set_current_win(float_win)
      vim.api.nvim_win_set_cursor(float_win, { row, 0 })
      vim.cmd('normal gf') -- the float's buffer-local mapping: a split at the location
      results.c5010_gf = {
        file = vim.fs.basename(vim.api.nvim_buf_get_name(0)),
        cursor = vim.api.nvim_win_get_cursor(0),
      }
      vim.cmd('only')
    end
    pcall(vim.api.nvim_win_close, float_win, true)
    vim.api.nvim_set_current_buf(c5010)
  end)

  -- 2. heat_e1.ci: highlight captures, hover, code lenses, a run.
  local heat
  if not section('open heat_e1.ci', function()
    vim.cmd.edit(vim.fn.fnameescape(dir .. '/heat_e1.ci'))
    heat = vim.api.nvim_get_current_buf()
    wait('cint-ls to attach to heat_e1.ci', TIMEOUT, function()
      return cint_client(heat) ~= nil
    end)
    results.same_client = cint_client(heat).id == client.id
  end) then
    return
  end
  -- Line 13 (0-based 12): `        I64 flux = div_round(kn * lap, kd, half_even);`
  local line = vim.api.nvim_buf_get_lines(heat, 12, 13, false)[1]
  results.kernel_line = line

  section('highlight captures', function()
    results.highlighter_active = vim.treesitter.highlighter.active[heat] ~= nil
    -- With no UI nothing redraws, so the highlighter has not parsed yet: parse now.
    vim.treesitter.get_parser(heat, 'cint'):parse(true)
    results.captures = {}
    for _, token in ipairs({ 'I64', 'flux', '=', 'div_round', '(', 'kn', '*', 'lap', ',', 'half_even', ';' }) do
      local col = assert(line:find(token, 1, true), token) - 1
      results.captures[token] = captures_at(heat, 12, col)
    end
    local header = vim.api.nvim_buf_get_lines(heat, 0, 1, false)[1] -- `kernel diffuse[h, w](`
    results.header_captures = {
      kernel = captures_at(heat, 0, 0),
      diffuse = captures_at(heat, 0, header:find('diffuse', 1, true) - 1),
      h = captures_at(heat, 0, header:find('h', 8, true) - 1),
    }
    local param = vim.api.nvim_buf_get_lines(heat, 1, 2, false)[1] -- `    in I32[h, w] u,`
    results.param_captures = { ['in'] = captures_at(heat, 1, param:find('in', 1, true) - 1) }
  end)

  -- The default colour scheme, and again after `:colorscheme default` (which clears every
  -- group): each token is drawn with the same attributes (screenattr: the cell as drawn)
  -- with the server's semantic tokens as with tree-sitter alone.
  section('semantic tokens keep the colours', function()
    vim.o.lines, vim.o.columns = 50, 120
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    local st = vim.lsp.semantic_tokens
    local client_id = cint_client(heat).id
    local void_line = vim.api.nvim_buf_get_lines(heat, 19, 20, false)[1] -- `void step() {`
    local spots = {
      { 'I64', 12, line:find('I64', 1, true) - 1 },
      { 'half_even', 12, line:find('half_even', 1, true) - 1 },
      { 'div_round', 12, line:find('div_round', 1, true) - 1 },
      { 'kn', 12, line:find('kn', 1, true) - 1 },
      { 'void', 19, void_line:find('void', 1, true) - 1 },
    }
    local function semantic_groups(row, col)
      local groups = {}
      for _, mark in ipairs(vim.inspect_pos(heat, row, col).semantic_tokens) do
        table.insert(groups, mark.opts.hl_group)
      end
      return groups
    end
    local function has_tokens()
      return #semantic_groups(spots[1][2], spots[1][3]) > 0
    end
    local function attr(row, col)
      local pos = vim.fn.screenpos(0, row + 1, col + 1)
      return pos.row > 0 and vim.fn.screenattr(pos.row, pos.col) or -1
    end
    local function enable(on)
      if st.enable and st.is_enabled then
        st.enable(on, { bufnr = heat })
      elseif on then
        st.start(heat, client_id)
      else
        st.stop(heat, client_id)
      end
      wait(on and 'semantic tokens' or 'no semantic tokens', TIMEOUT, function()
        return has_tokens() == on
      end)
      vim.cmd('redraw!')
    end
    local function measure(scheme)
      enable(true)
      local seen = {}
      for _, spot in ipairs(spots) do
        seen[spot[1]] = { with = attr(spot[2], spot[3]), groups = semantic_groups(spot[2], spot[3]) }
      end
      enable(false)
      for _, spot in ipairs(spots) do
        seen[spot[1]].without = attr(spot[2], spot[3])
      end
      enable(true)
      results.semantic_colours = results.semantic_colours or {}
      results.semantic_colours[scheme] = seen
    end
    wait('semantic tokens', TIMEOUT, has_tokens)
    measure('default')
    vim.cmd.colorscheme('default')
    measure('after :colorscheme default')
  end)

  section('hover', function()
    local star = line:find('*', 1, true) - 1
    local responses = vim.lsp.buf_request_sync(heat, 'textDocument/hover', {
      textDocument = { uri = vim.uri_from_bufnr(heat) },
      position = { line = 12, character = star },
    }, TIMEOUT)
    for _, response in pairs(responses or {}) do
      if response.err then
        results.hover_error = response.err.message
      else
        results.hover = hover_text(response.result)
      end
    end
  end)

  local lenses_ok = section('code lenses', function()
    wait('code lenses from the refresh on attach', TIMEOUT, function()
      return #vim.lsp.codelens.get(heat) > 0
    end)
  end)
  results.refreshes_after_attach = results.codelens_refreshes
  results.lenses = {}
  for _, lens in ipairs(vim.lsp.codelens.get(heat)) do
    table.insert(results.lenses, {
      line = lens.range.start.line,
      title = lens.command and lens.command.title or vim.NIL,
      command = lens.command and lens.command.command or vim.NIL,
      arguments = lens.command and lens.command.arguments or vim.NIL,
    })
  end

  if lenses_ok then
    section('run a code lens', function()
      local chosen
      for _, lens in ipairs(vim.lsp.codelens.get(heat)) do
        local c = lens.command
        if c and c.command == 'cint.run' and (chosen == nil or (c.arguments or {})[2] == 'cpu-sir-interp') then
          chosen = lens
        end
      end
      assert(chosen, 'no cint.run code lens')
      results.chosen_lens = { title = chosen.command.title, arguments = chosen.command.arguments }
      -- What a person does: cursor on the lens's line, `vim.lsp.codelens.run()`, pick the lens.
      vim.api.nvim_win_set_cursor(0, { chosen.range.start.line + 1, 0 })
      vim.ui.select = function(items, opts, on_choice)
        results.select_prompt = opts.prompt
        for _, item in ipairs(items) do
          if item.lens == chosen then
            return on_choice(item)
          end
        end
        on_choice(nil)
      end
      cint.last_result = nil
      vim.lsp.codelens.run()
      wait('the run result and the fault diagnostic', TIMEOUT, function()
        return cint.last_result ~= nil and has_code(heat, 'E_OVERFLOW')
      end)
    end)
    results.run_result = cint.last_result or vim.NIL
    results.heat_diagnostics = diagnostics(heat)
    vim.wait(200) -- the output window is filled in a scheduled callback
    local output = vim.fn.bufnr('cint://output')
    results.output_lines = output ~= -1 and vim.api.nvim_buf_get_lines(output, 0, -1, false) or vim.NIL
    results.current_buffer_after_run = vim.api.nvim_get_current_buf() == heat
  end

  section('server results printed', function()
    local file = assert(io.open(vim.env.CINT_TEST_RESULTS, 'r'))
    local decoded = vim.json.decode(file:read('*a'))
    file:close()
    results.server_result_lines = {}
    for _, result in ipairs(decoded) do
      table.insert(results.server_result_lines, cint.run_lines(result))
    end
  end)

  section(':CintRun', function()
    cint.last_result = nil
    vim.cmd('CintRun cpu-sir-interp')
    wait('the result of :CintRun', TIMEOUT, function()
      return cint.last_result ~= nil
    end)
    results.cintrun_result = cint.last_result
  end)

  section(':CintRun gpu-cuda', function()
    vim.api.nvim_set_current_buf(heat)
    cint.last_result = nil
    vim.cmd('CintRun gpu-cuda')
    wait('the result of :CintRun gpu-cuda', TIMEOUT, function()
      return cint.last_result ~= nil
    end)
    results.gpu_result = { executor = cint.last_result.executor, summary = cint.last_result.summary or vim.NIL,
                           notes = cint.last_result.notes or vim.NIL,
                           code = (cint.last_result.fault or {}).code or vim.NIL }
    vim.wait(200)
    local output = vim.fn.bufnr('cint://output')
    results.gpu_output_lines = output ~= -1 and vim.api.nvim_buf_get_lines(output, 0, -1, false) or vim.NIL
  end)

  section(':CintCancel stops a run of an endless loop', function()
    local path = dir .. '/spin.ci'
    vim.fn.writefile({ 'void spin() {', '    I64 i = 0;', '    while (true) {', '        i = i +% 1;', '    }',
                       '}', 'spin();' }, path)
    vim.cmd.edit(vim.fn.fnameescape(path))
    local spin = vim.api.nvim_get_current_buf()
    wait('cint-ls to attach to spin.ci', TIMEOUT, function()
      return cint_client(spin) ~= nil
    end)
    -- The server's command line has its own log file: the mark of its processes.
    local mark = cmd[#cmd - 2]
    local notes = {}
    local notify = vim.notify
    vim.notify = function(message, level, ...)
      table.insert(notes, { message = tostring(message), level = level or vim.log.levels.INFO })
      return notify(message, level, ...)
    end
    cint.last_result = nil
    vim.cmd('CintRun cpu-sir-interp')
    wait('the run child of the endless loop', TIMEOUT, function()
      return #run_children(mark) > 0
    end)
    vim.wait(300) -- it is running, not starting
    local children = run_children(mark)
    results.cancel_children = children
    results.progress_status_during = cint.status()
    results.progress_echo_during = results.progress_echoes[#results.progress_echoes] or vim.NIL
    -- How many of those are alive (an exiting process reads an empty cmdline, so they are
    -- followed by pid; a zombie is dead, waiting for the server to reap it).
    local function left()
      local count = 0
      for _, pid in ipairs(children) do
        local stat = io.open('/proc/' .. pid .. '/stat') -- nil: reaped
        local state = stat and stat:read('*a'):match('%) (%S)')
        if stat then
          stat:close()
        end
        if state and state ~= 'Z' then
          count = count + 1
        end
      end
      return count
    end
    local started = vim.uv.hrtime()
    vim.cmd('CintCancel')
    local gone = vim.wait(5000, function()
      return left() == 0
    end, 5)
    results.cancel_ms = gone and (vim.uv.hrtime() - started) / 1e6 or vim.NIL
    results.cancel_left = left()
    wait('the cancelled run\'s result', 10000, function()
      return cint.last_result ~= nil
    end)
    vim.wait(200) -- the answer to the request, handled after the notification
    results.progress_status_after = cint.status()
    results.progress_last_after = cint.last_progress or vim.NIL
    vim.notify = notify
    results.cancel_result_error = cint.last_result.error or vim.NIL
    results.cancel_notes = notes
    results.cancel_again = cint.cancel() -- nothing left to cancel
    vim.cmd('bwipeout!')
    vim.api.nvim_set_current_buf(heat)
  end)

  section('lens after inserting lines, without saving', function()
    local before = vim.lsp.codelens.get(heat)
    local first = before[1] and before[1].range.start.line or -1
    results.lens_line_before_insert = first
    vim.api.nvim_buf_set_lines(heat, 0, 0, false, { '// one', '// two' })
    vim.api.nvim_exec_autocmds('TextChanged', { buffer = heat })
    wait('the code lens two lines lower', 10000, function()
      local now = vim.lsp.codelens.get(heat)
      return now[1] ~= nil and now[1].range.start.line == first + 2
    end)
    results.lens_line_after_insert = vim.lsp.codelens.get(heat)[1].range.start.line
    vim.api.nvim_buf_set_lines(heat, 0, 2, false, {})
  end)

  section('a quick fix applied', function()
    local path = dir .. '/typo.ci'
    vim.fn.writefile({ 'void go() {', '    I64 count = 1;', '    I64 x = cout + 1;', '}', 'go();' }, path)
    vim.cmd.edit(vim.fn.fnameescape(path))
    local typo = vim.api.nvim_get_current_buf()
    wait('the C2001 diagnostic', TIMEOUT, function()
      return has_code(typo, 'C2001')
    end)
    results.quickfix_before = diagnostics(typo)
    -- What a person does: the cursor on `cout`, the code action, applied.
    vim.api.nvim_win_set_cursor(0, { 3, 12 })
    local offered = {}
    vim.lsp.buf.code_action({
      apply = true,
      filter = function(action)
        table.insert(offered, action.title)
        return action.title == 'Change to `count`'
      end,
    })
    wait('the fixed line', TIMEOUT, function()
      return vim.api.nvim_buf_get_lines(typo, 2, 3, false)[1] == '    I64 x = count + 1;'
    end)
    results.quickfix_offered = offered
    results.quickfix_line = vim.api.nvim_buf_get_lines(typo, 2, 3, false)[1]
    wait('C2001 to go', TIMEOUT, function()
      return not has_code(typo, 'C2001')
    end)
    vim.wait(500) -- a later diagnostic would come by now
    results.quickfix_after = diagnostics(typo)
    vim.cmd('bwipeout!')
    vim.api.nvim_set_current_buf(heat)
  end)

  section('an untitled buffer\'s step hover', function()
    vim.cmd('enew')
    local untitled = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(untitled, 0, -1, false, vim.api.nvim_buf_get_lines(heat, 0, -1, false))
    vim.bo[untitled].filetype = 'cint'
    results.untitled_name = vim.api.nvim_buf_get_name(untitled)
    wait('cint-ls to attach to the untitled buffer', TIMEOUT, function()
      return cint_client(untitled) ~= nil
    end)
    results.untitled_uri = vim.uri_from_bufnr(untitled)
    local text
    wait('a hover with a step ordinal', TIMEOUT, function()
      local responses = vim.lsp.buf_request_sync(untitled, 'textDocument/hover', {
        textDocument = { uri = vim.uri_from_bufnr(untitled) },
        position = { line = 12, character = 32 },
      }, 5000)
      for _, response in pairs(responses or {}) do
        if response.err then
          results.untitled_hover_error = response.err.message
        elseif response.result then
          text = hover_text(response.result)
        end
      end
      return text ~= nil and text:find('step 22', 1, true) ~= nil
    end)
    results.untitled_hover = text
    results.untitled_diagnostics = diagnostics(untitled)
    vim.cmd('bwipeout!')
    vim.api.nvim_set_current_buf(heat)
  end)

  section('checkhealth and help', function()
    vim.cmd('checkhealth cint')
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    results.health = text
    vim.cmd('close')
    local ok = pcall(vim.cmd, 'help cint')
    results.help_opens = ok and vim.bo.filetype == 'help'
    if ok then
      vim.cmd('close')
    end
  end)

  section('settings reach the running server', function()
    cint.setup({ cmd = cmd, settings = { cint = { fuel = 7 } } })
    vim.api.nvim_set_current_buf(heat)
    vim.wait(300)
    cint.last_result = nil
    vim.cmd('CintRun cpu-sir-interp')
    wait('the run with the new fuel budget', TIMEOUT, function()
      return cint.last_result ~= nil
    end)
    results.fuel_after_setup = cint.last_result.fuel or vim.NIL
    results.code_after_setup = (cint.last_result.fault or {}).code or vim.NIL
  end)

  section('refresh on save', function()
    local before = results.codelens_refreshes
    vim.cmd('silent write')
    wait('a code lens refresh after :write', 5000, function()
      return results.codelens_refreshes > before
    end)
    results.refreshed_on_save = true
  end)
end

local ok, err = xpcall(scenario, debug.traceback)
if not ok then
  results.errors.scenario = err
end
results.ok = ok and next(results.errors) == nil
local file = assert(io.open(assert(vim.env.CINT_TEST_OUT, 'CINT_TEST_OUT'), 'w'))
file:write(vim.json.encode(results))
file:close()
vim.cmd('qall!')
