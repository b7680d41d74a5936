; Folds for cint (nvim-treesitter capture names). A fold that starts and ends on one
; line is ignored by the editor, so single-line parameter lists and literals cost nothing.

[
  (kernel_definition)
  (function_definition)
  (struct_definition)
  (block)
  (switch_statement)
  (case_clause)
  (default_clause)
  (parameter_list)
  (array_literal)
  (comment)
] @fold
