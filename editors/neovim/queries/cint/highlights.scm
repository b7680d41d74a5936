; Highlights for cint, with nvim-treesitter capture names.
;
; Order: where two patterns capture the same node, the later pattern wins (Neovim, and
; `tree-sitter test`/`tree-sitter highlight` of CLI 0.22), so the fallback
; `(identifier) @variable` comes first and specific patterns follow general ones. The
; CLI drops a whole match once a later pattern overrides one of its captures, so a
; pattern that captures several nodes comes after every pattern that also captures one
; of them.

(identifier) @variable

; ------------------------------------------------------------------ keywords

"kernel" @keyword.function

[
  "over"
  "where"
  "reduce"
  "by"
  "assert"
] @keyword

"struct" @keyword.type

"import" @keyword.import

"return" @keyword.return

[
  "if"
  "else"
  "switch"
  "case"
  "default"
] @keyword.conditional

[
  "for"
  "while"
  "break"
  "continue"
] @keyword.repeat

(for_statement
  "in" @keyword.repeat)

(export) @keyword.modifier

; `in`, `out`, `inout` before a parameter.
(parameter_mode) @keyword.modifier

[
  "as"
  "as%"
  "as?"
] @keyword.operator

; ------------------------------------------------------------------ types

(primitive_type) @type.builtin

(void_type) @type.builtin

(type_identifier) @type

(struct_definition
  name: (identifier) @type.definition)

; `I128.max`, `Q16.16.min`
(type_property
  property: (identifier) @constant.builtin)

; ------------------------------------------------------------------ definitions

(kernel_definition
  name: (identifier) @function)

(function_definition
  name: (identifier) @function)

; The size symbols of a kernel: `kernel k[n, m]`.
(size_parameters
  size: (identifier) @variable.parameter)

; The variables of the iteration space: `over [y: h, x: w]`.
(over_binding
  name: (identifier) @variable.parameter)

(parameter
  name: (identifier) @variable.parameter)

(field_declaration
  name: (identifier) @variable.member)

(import_declaration
  path: (module_path
    (identifier) @module))

; ------------------------------------------------------------------ calls

(field_expression
  field: (identifier) @variable.member)

((call_expression
  function: (identifier) @function.builtin)
  (#any-of? @function.builtin "div_round" "min" "max" "abs" "reverse" "transpose"))

((call_expression
  function: (identifier) @function.call)
  (#not-any-of? @function.call "div_round" "min" "max" "abs" "reverse" "transpose"))

; `div_round(a, b, half_even)`: the rounding mode is its third argument. One pattern
; captures both nodes: a match whose capture a later pattern overrides is dropped whole.
((call_expression
  function: (identifier) @function.builtin
  arguments: (argument_list
    .
    (_)
    .
    (_)
    .
    (identifier) @constant.builtin))
  (#eq? @function.builtin "div_round"))

; `mod.f()`: a module-qualified call.
(call_expression
  function: (field_expression
    value: (identifier) @module
    field: (identifier) @function.call))

; `reduce s = sum(x);`
(reduce_statement
  operator: (identifier) @function.builtin)

; `reduce s = fold_checked(add, 0, x);`: the fold's operation.
((reduce_statement
  operator: (identifier) @function.builtin
  arguments: (argument_list
    .
    (identifier) @constant.builtin))
  (#eq? @function.builtin "fold_checked"))

; ------------------------------------------------------------------ literals

(integer_literal) @number

(fixed_literal) @number.float

(boolean_literal) @boolean

(string) @string

(escape_sequence) @string.escape

(interpolation
  [
    "{"
    "}"
  ] @punctuation.special)

(comment) @comment

; ------------------------------------------------------------------ operators

[
  "-"
  "!"
  "~"
  "*"
  "/"
  "%"
  "*|"
  "*%"
  "+"
  "+|"
  "-|"
  "+%"
  "-%"
  "<<"
  ">>"
  "&"
  "^"
  "|"
  "=="
  "!="
  "<"
  "<="
  ">"
  ">="
  "&&"
  "||"
  "="
  ".."
] @operator

; ------------------------------------------------------------------ punctuation

[
  "("
  ")"
  "["
  "]"
] @punctuation.bracket

(block
  [
    "{"
    "}"
  ] @punctuation.bracket)

(switch_statement
  [
    "{"
    "}"
  ] @punctuation.bracket)

(struct_definition
  [
    "{"
    "}"
  ] @punctuation.bracket)

[
  ","
  ";"
  ":"
  "."
] @punctuation.delimiter
