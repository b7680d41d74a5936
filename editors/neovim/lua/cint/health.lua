--- `:checkhealth cint`: the Neovim version, the server (found, and its version), the
--- tree-sitter parser (found and loadable), and whether a client is running.
local M = {}

local health = vim.health

function M.check()
  local cint = require('cint')
  health.start('cint')

  if vim.fn.has('nvim-0.10') == 1 then
    local v = vim.version()
    health.ok(('Neovim %d.%d.%d'):format(v.major, v.minor, v.patch))
  else
    health.error('Neovim 0.10 or later is needed')
  end

  local cmd = cint.config.cmd or {}
  local exe = cmd[1] and vim.fn.exepath(cmd[1]) or ''
  if exe == '' then
    health.error(('the server command %s is not found'):format(vim.inspect(cmd)), {
      'python3 -m pip install /path/to/cint-ls (the repository: it is on no package index; :help cint-setup)',
      "or set cmd = { 'python3', '-m', 'cint_ls.server' } in require('cint').setup()",
    })
  else
    local args = vim.list_extend(vim.deepcopy(cmd), { '--version' })
    local ok, result = pcall(function()
      return vim.system(args, { text = true }):wait(10000)
    end)
    if ok and result.code == 0 then
      health.ok(('server: %s (%s)'):format(vim.trim(result.stdout or ''), exe))
    else
      health.error(('`%s --version` failed: %s'):format(table.concat(cmd, ' '),
        ok and vim.trim(result.stderr or '') or tostring(result)))
    end
  end

  local parser = cint.parser_path()
  if parser and cint.register_parser() then
    health.ok('tree-sitter parser: ' .. parser)
  elseif parser then
    health.error('the tree-sitter parser does not load: ' .. parser)
  else
    health.warn('no tree-sitter parser found: no highlighting', {
      'install the Python package (its parser is found automatically), or run :CintBuildParser',
    })
  end

  local clients = vim.lsp.get_clients({ name = 'cint_ls' })
  if #clients > 0 then
    health.ok(('cint_ls is running (%d client%s)'):format(#clients, #clients == 1 and '' or 's'))
  else
    health.info('cint_ls is not running: open a .ci file')
  end
end

return M
