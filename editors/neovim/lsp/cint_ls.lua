-- The language server cint-ls for Neovim 0.11+'s `vim.lsp.enable('cint_ls')`, with no
-- `setup` call: Neovim reads this file from 'runtimepath' (`lsp/<name>.lua`) and merges
-- what `vim.lsp.config('cint_ls', {...})` adds to it, e.g.
--
--   vim.lsp.config('cint_ls', { cmd = { 'python3', '-m', 'cint_ls.server' },
--                               settings = { cint = { run = { timeLimit = 30 } } } })
--   vim.lsp.enable('cint_ls')
--
-- `require('cint').setup{}` is optional: it does the same and adds its options
-- (inlay hints, code lenses refreshed as you type, the run output window). See :help cint.
---@type vim.lsp.Config
return {
  cmd = { 'cint-ls' },
  filetypes = { 'cint' },
  root_markers = { '.git', 'pyproject.toml' },
  settings = {},
  -- The server offers the quick fix of a gpu-cuda refusal (cint.setTargets) to clients
  -- that run it: this one does (require('cint').set_targets).
  capabilities = { experimental = { cint = { setTargets = true } } },
  commands = {
    ['cint.setTargets'] = function(...)
      return require('cint').set_targets(...)
    end,
    -- A code lens's run, sent with a progress token that names the file (see on_attach).
    ['cint.run'] = function(...)
      return require('cint').execute_command(...)
    end,
    ['cint.compareExecutors'] = function(...)
      return require('cint').execute_command(...)
    end,
  },
  handlers = {
    -- A Run's output and fault (code lenses, :CintRun), in the window `cint://output`.
    ['cint/runResult'] = function(...)
      return require('cint').on_run_result(...)
    end,
    ['cint/compareResult'] = function(...)
      return require('cint').on_compare_result(...)
    end,
  },
  on_attach = function(_, bufnr)
    -- A run in progress in the command line and require('cint').status(); colours.
    require('cint').watch_progress()
    -- The Run / Compare code lenses; setup{} also refreshes them as you type.
    if vim.lsp.codelens and vim.lsp.codelens.refresh then
      vim.lsp.codelens.refresh({ bufnr = bufnr })
    end
  end,
}
