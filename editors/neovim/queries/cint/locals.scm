; Scopes, definitions and references for cint (nvim-treesitter capture names).

; ------------------------------------------------------------------ scopes

[
  (source_file)
  (kernel_definition)
  (function_definition)
  (block)
  (for_statement)
] @local.scope

; ------------------------------------------------------------------ definitions

; Items, visible in the whole module.
(kernel_definition
  name: (identifier) @local.definition.function)

(function_definition
  name: (identifier) @local.definition.function)

(struct_definition
  name: (identifier) @local.definition.type)

(field_declaration
  name: (identifier) @local.definition.field)

; `import lib.math;` binds `math`.
(import_declaration
  path: (module_path
    (identifier) @local.definition.import .))

; The size symbols and the iteration variables of a kernel, and every parameter.
(size_parameters
  size: (identifier) @local.definition.parameter)

(over_binding
  name: (identifier) @local.definition.parameter)

(parameter
  name: (identifier) @local.definition.parameter)

; Locals.
(variable_declaration
  name: (identifier) @local.definition.var)

(for_statement
  variable: (identifier) @local.definition.var)

; ------------------------------------------------------------------ references

(identifier) @local.reference

(type_identifier) @local.reference
