; Indentation for cint (nvim-treesitter capture names).

; A node that opens a level: its lines after the first are indented by one.
[
  (block)
  (struct_definition)
  (switch_statement)
  (case_clause)
  (default_clause)
  (parameter_list)
  (argument_list)
  (size_parameters)
  (iteration_space)
  (array_literal)
  (parenthesized_expression)
] @indent.begin

; A closing delimiter returns to the level of the line that opened it, and ends the level.
[
  "}"
  ")"
  "]"
] @indent.branch

(block
  "}" @indent.end)

(struct_definition
  "}" @indent.end)

(switch_statement
  "}" @indent.end)

(parameter_list
  ")" @indent.end)

(argument_list
  ")" @indent.end)

(parenthesized_expression
  ")" @indent.end)

(size_parameters
  "]" @indent.end)

(iteration_space
  "]" @indent.end)

(array_literal
  "]" @indent.end)

; `} else {` stays at the level of its `if`.
(if_statement
  "else" @indent.branch)

(comment) @indent.ignore
