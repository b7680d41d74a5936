/**
 * @file Tree-sitter grammar for cint (cint-core-1 as LANGUAGE.md describes it).
 *
 * The grammar is deliberately permissive where a precise rule would turn one mistake
 * into an error cascade: assignment targets, reduce operators and case labels are plain
 * expressions or identifiers here, and the analysis reports what is wrong with them.
 * Constructs the toolchain may refuse (structs, `as?`, imports) parse normally so that
 * the refusal is one clear diagnostic.
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

// Precedence, loosest first (LANGUAGE.md "Expressions").
const PREC = {
  or: 1,
  and: 2,
  compare: 3,
  bit_or: 4,
  bit_xor: 5,
  bit_and: 6,
  shift: 7,
  additive: 8,
  multiplicative: 9,
  cast: 10,
  unary: 11,
  postfix: 12,
};

// A named type (a struct); the analysis resolves it.
const typeIdentifier = ($) => alias($.identifier, $.type_identifier);

const commaSep = (rule) => optional(commaSep1(rule));
const commaSep1 = (rule) => seq(rule, repeat(seq(',', rule)), optional(','));

module.exports = grammar({
  name: 'cint',

  word: ($) => $.identifier,

  extras: ($) => [/\s/, $.comment],

  supertypes: ($) => [$._expression, $._statement, $._item, $._type],

  conflicts: ($) => [
    // `P[3] x;` (an array of a named type) against `p[3] = x;` (an element store).
    [$.array_type, $._expression],
  ],

  rules: {
    source_file: ($) => repeat(choice($._item, $._statement)),

    _item: ($) => choice(
      $.kernel_definition,
      $.function_definition,
      $.struct_definition,
      $.import_declaration,
    ),

    // ---------------------------------------------------------------- items

    kernel_definition: ($) => seq(
      'kernel',
      field('name', $.identifier),
      field('sizes', $.size_parameters),
      field('parameters', $.parameter_list),
      'over',
      field('space', $.iteration_space),
      optional(field('where', $.where_clause)),
      field('body', $.block),
    ),

    size_parameters: ($) => seq('[', commaSep(field('size', $.identifier)), ']'),

    iteration_space: ($) => seq('[', commaSep(field('dimension', $.over_binding)), ']'),

    over_binding: ($) => seq(
      field('name', $.identifier),
      ':',
      field('extent', $._expression),
    ),

    where_clause: ($) => seq(
      'where',
      field('constraint', $._expression),
      repeat(seq(',', field('constraint', $._expression))),
    ),

    function_definition: ($) => seq(
      optional(field('export', $.export)),
      field('return_type', choice($._type, $.void_type)),
      field('name', $.identifier),
      field('parameters', $.parameter_list),
      field('body', $.block),
    ),

    export: (_) => 'export',

    void_type: (_) => 'void',

    parameter_list: ($) => seq('(', commaSep(field('parameter', $.parameter)), ')'),

    parameter: ($) => seq(
      optional(field('mode', $.parameter_mode)),
      field('type', $._type),
      field('name', $.identifier),
    ),

    parameter_mode: (_) => choice('in', 'out', 'inout'),

    struct_definition: ($) => seq(
      'struct',
      field('name', $.identifier),
      '{',
      repeat(field('field', $.field_declaration)),
      '}',
    ),

    field_declaration: ($) => seq(field('type', $._type), field('name', $.identifier), ';'),

    import_declaration: ($) => seq('import', field('path', $.module_path), ';'),

    module_path: ($) => seq($.identifier, repeat(seq('.', $.identifier))),

    // ---------------------------------------------------------------- types

    _type: ($) => choice($.primitive_type, $.array_type, typeIdentifier($)),

    // Bool, I8..I1024, U8..U512, Qm.n. Spellings such as I24 also parse here; the
    // analysis says which widths exist. On a tie with identifier (`I64`) this rule
    // wins because it comes first in the grammar; it has no lexical precedence, since
    // that would stop the lexer at `U8` in the identifier `U8x` (or `I32` in `I32_val`,
    // `Bool` in `Boolean`) instead of taking the longest match.
    primitive_type: (_) => token(choice(
      'Bool',
      /[IU][0-9]+/,
      /Q[0-9]+\.[0-9]+/,
    )),

    array_type: ($) => seq(
      field('element', choice($.primitive_type, typeIdentifier($))),
      '[',
      commaSep1(field('extent', $._expression)),
      ']',
    ),

    // ---------------------------------------------------------------- statements

    _statement: ($) => choice(
      $.variable_declaration,
      $.assignment_statement,
      $.expression_statement,
      $.print_statement,
      $.if_statement,
      $.for_statement,
      $.while_statement,
      $.switch_statement,
      $.break_statement,
      $.continue_statement,
      $.return_statement,
      $.assert_statement,
      $.reduce_statement,
      $.block,
    ),

    block: ($) => seq('{', repeat($._statement), '}'),

    variable_declaration: ($) => seq(
      field('type', $._type),
      field('name', $.identifier),
      optional(seq('=', field('value', $._expression))),
      ';',
    ),

    assignment_statement: ($) => seq(
      field('left', $._expression),
      '=',
      field('right', $._expression),
      ';',
    ),

    expression_statement: ($) => seq($._expression, ';'),

    // A string statement prints its text with every `{expr}` replaced by the value.
    print_statement: ($) => seq(field('string', $.string), ';'),

    if_statement: ($) => prec.right(seq(
      'if',
      '(',
      field('condition', $._expression),
      ')',
      field('consequence', $.block),
      optional(seq('else', field('alternative', choice($.block, $.if_statement)))),
    )),

    for_statement: ($) => seq(
      'for',
      field('variable', $.identifier),
      'in',
      field('start', $._expression),
      '..',
      field('end', $._expression),
      field('body', $.block),
    ),

    while_statement: ($) => seq(
      'while',
      '(',
      field('condition', $._expression),
      ')',
      field('body', $.block),
    ),

    switch_statement: ($) => seq(
      'switch',
      '(',
      field('value', $._expression),
      ')',
      '{',
      repeat(field('clause', choice($.case_clause, $.default_clause))),
      '}',
    ),

    case_clause: ($) => seq(
      'case',
      field('label', $._expression),
      ':',
      repeat(field('statement', $._statement)),
    ),

    default_clause: ($) => seq('default', ':', repeat(field('statement', $._statement))),

    break_statement: (_) => seq('break', ';'),

    continue_statement: (_) => seq('continue', ';'),

    return_statement: ($) => seq('return', optional(field('value', $._expression)), ';'),

    assert_statement: ($) => seq('assert', '(', field('condition', $._expression), ')', ';'),

    // `reduce total = sum(r);` and `reduce s = fold_checked(add, 0, x[i]);`
    reduce_statement: ($) => seq(
      'reduce',
      field('target', $.identifier),
      '=',
      field('operator', $.identifier),
      field('arguments', $.argument_list),
      ';',
    ),

    // ---------------------------------------------------------------- expressions

    _expression: ($) => choice(
      $.identifier,
      $.integer_literal,
      $.fixed_literal,
      $.boolean_literal,
      $.parenthesized_expression,
      $.array_literal,
      $.unary_expression,
      $.binary_expression,
      $.cast_expression,
      $.call_expression,
      $.index_expression,
      $.field_expression,
      $.type_property,
    ),

    parenthesized_expression: ($) => seq('(', field('expression', $._expression), ')'),

    array_literal: ($) => seq('[', commaSep(field('element', $._expression)), ']'),

    unary_expression: ($) => prec(PREC.unary, seq(
      field('operator', choice('-', '!', '~')),
      field('operand', $._expression),
    )),

    binary_expression: ($) => {
      const table = [
        [PREC.or, '||'],
        [PREC.and, '&&'],
        // Comparisons do not chain (LANGUAGE.md); the analysis rejects `a < b < c`.
        [PREC.compare, choice('==', '!=', '<', '<=', '>', '>=')],
        [PREC.bit_or, '|'],
        [PREC.bit_xor, '^'],
        [PREC.bit_and, '&'],
        [PREC.shift, choice('<<', '>>')],
        [PREC.additive, choice('+', '-', '+|', '-|', '+%', '-%')],
        [PREC.multiplicative, choice('*', '/', '%', '*|', '*%')],
      ];
      return choice(...table.map(([precedence, operator]) => prec.left(precedence, seq(
        field('left', $._expression),
        // @ts-ignore
        field('operator', operator),
        field('right', $._expression),
      ))));
    },

    // `e as T`, `e as% T` (wrapping), `e as? T` (result form).
    cast_expression: ($) => prec.left(PREC.cast, seq(
      field('value', $._expression),
      field('operator', choice('as', 'as%', 'as?')),
      // Only scalar types: `x as I64[2]` would be ambiguous with an index.
      field('type', choice($.primitive_type, typeIdentifier($))),
    )),

    call_expression: ($) => prec(PREC.postfix, seq(
      field('function', choice($.identifier, $.field_expression)),
      field('arguments', $.argument_list),
    )),

    argument_list: ($) => seq('(', commaSep(field('argument', $._expression)), ')'),

    index_expression: ($) => prec(PREC.postfix, seq(
      field('value', $._expression),
      '[',
      commaSep1(field('index', choice($._expression, $.slice))),
      ']',
    )),

    // `lo..hi`, `lo..hi by s`, `..` (the whole dimension).
    slice: ($) => prec.right(seq(
      optional(field('start', $._expression)),
      '..',
      optional(field('end', $._expression)),
      optional(seq('by', field('step', $._expression))),
    )),

    field_expression: ($) => prec(PREC.postfix, seq(
      field('value', $._expression),
      '.',
      field('field', $.identifier),
    )),

    // `I128.max`, `Q16.16.min`.
    type_property: ($) => seq(
      field('type', $.primitive_type),
      '.',
      field('property', $.identifier),
    ),

    // ---------------------------------------------------------------- tokens

    identifier: (_) => /[A-Za-z_][A-Za-z0-9_]*/,

    integer_literal: (_) => token(choice(
      /0[xX][0-9a-fA-F_]+/,
      /0[bB][01_]+/,
      /[0-9][0-9_]*/,
    )),

    // A fixed literal needs a digit after the point, so `0..8` stays a range.
    fixed_literal: (_) => token(/[0-9][0-9_]*\.[0-9][0-9_]*/),

    boolean_literal: (_) => choice('true', 'false'),

    string: ($) => seq(
      '"',
      repeat(choice(
        $.string_content,
        $.escape_sequence,
        $.interpolation,
      )),
      token.immediate('"'),
    ),

    string_content: (_) => token.immediate(prec(1, /[^"\\{}\n]+/)),

    escape_sequence: (_) => token.immediate(/\\[nt\\"{}]/),

    interpolation: ($) => seq(
      token.immediate('{'),
      field('expression', $._expression),
      '}',
    ),

    comment: (_) => token(choice(
      seq('//', /[^\n]*/),
      seq('/*', /[^*]*\*+([^/*][^*]*\*+)*/, '/'),
    )),
  },
});
