-- cint buffers: comments, and tree-sitter highlighting with the cint parser (from the
-- Python package cint-ls, a parser/cint.so on 'runtimepath' such as nvim-treesitter's, or
-- :CintBuildParser), also when `require('cint').setup{}` was never called.
vim.bo.commentstring = '// %s'
local cint = require('cint')
if cint.config.highlight and not vim.b.cint_highlight_started and cint.register_parser() then
  if pcall(vim.treesitter.start, 0, 'cint') then
    vim.b.cint_highlight_started = true
  end
end
