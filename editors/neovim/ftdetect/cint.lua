-- `*.ci` files are cint.
vim.filetype.add({ extension = { ci = 'cint' } })
