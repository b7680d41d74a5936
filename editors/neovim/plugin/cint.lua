-- Commands of the cint plugin. They work once `require('cint').setup{}` has run.
if vim.g.loaded_cint then
  return
end
vim.g.loaded_cint = true

-- `:colorscheme` clears every highlight group: define cint's semantic token groups again.
vim.api.nvim_create_autocmd('ColorScheme', {
  group = vim.api.nvim_create_augroup('cint_colours', { clear = true }),
  callback = function()
    if package.loaded['cint'] then
      require('cint').apply_highlights()
    end
  end,
})

local executors = { 'auto', 'cpu-sir-interp', 'cpu-c17', 'gpu-cuda' }

vim.api.nvim_create_user_command('CintRun', function(args)
  require('cint').run(args.args ~= '' and args.args or nil)
end, {
  nargs = '?',
  desc = 'cint: run the current file (optionally: the executor; default auto)',
  complete = function(lead)
    return vim.tbl_filter(function(name)
      return vim.startswith(name, lead)
    end, executors)
  end,
})

vim.api.nvim_create_user_command('CintTrace', function()
  require('cint').trace()
end, { desc = "cint: open the page of the last run's trace (timeline, heat maps, fault map) with vim.ui.open" })

vim.api.nvim_create_user_command('CintCompare', function()
  require('cint').compare()
end, { desc = 'cint: run the current file on every executor and compare' })

vim.api.nvim_create_user_command('CintCancel', function()
  require('cint').cancel()
end, { desc = 'cint: cancel the runs in progress (the server stops their processes)' })

vim.api.nvim_create_user_command('CintOutput', function()
  require('cint').show_output()
end, { desc = 'cint: show the output of the last run' })

vim.api.nvim_create_user_command('CintRestart', function()
  require('cint').restart()
end, { desc = 'cint: restart the language server' })

vim.api.nvim_create_user_command('CintBuildParser', function()
  require('cint').build_parser()
end, { desc = 'cint: compile the tree-sitter parser from grammar/src of this checkout' })

vim.api.nvim_create_user_command('CintWorkbench', function()
  require('cint').workbench()
end, { desc = 'cint: the workbench (cint-workbench) in a terminal below, with the current .ci file loaded' })

vim.api.nvim_create_user_command('CintWorkbenchSend', function(args)
  require('cint').workbench_send_range(args.line1, args.line2)
end, { range = true, desc = 'cint: send the lines of the range (default: the current line) to the workbench' })

-- Visual mode: the selection; Normal mode: the current line. cint buffers map it to
-- `workbench_keymap` (default <LocalLeader>w).
vim.keymap.set({ 'n', 'x' }, '<Plug>(cint-workbench-send)', function()
  require('cint').workbench_send_selection()
end, { desc = 'cint: send the line or the selection to the workbench' })
