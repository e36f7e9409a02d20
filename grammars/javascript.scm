; JavaScript: classes, methods, functions, functions and classes bound to names, and
; top-level SCREAMING_CASE `const`s (constant). `export` wraps a definition (see
; definitions.py), so `export function f` is the function `f`.
(class_declaration name: (identifier) @name) @definition.class
(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method
; A class field holding a function: `onClick = (event) => { ... }`.
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
; A function bound to a name in parentheses: `const f = (function () {})`.
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (parenthesized_expression [(arrow_function) (function_expression)]))) @definition.function
; include: ecmascript.scm
; Top-level SCREAMING_CASE `const`s holding a value (a function or class bound to such a
; name is a function or class, above).
(program
  (lexical_declaration
    kind: "const"
    (variable_declarator
      name: (identifier) @name
      value: [(number) (string) (template_string) (true) (false) (null) (undefined) (regex)
              (object) (array) (identifier) (member_expression) (subscript_expression)
              (call_expression) (new_expression) (binary_expression) (unary_expression)
              (ternary_expression) (parenthesized_expression)])) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name
        value: [(number) (string) (template_string) (true) (false) (null) (undefined) (regex)
                (object) (array) (identifier) (member_expression) (subscript_expression)
                (call_expression) (new_expression) (binary_expression) (unary_expression)
                (ternary_expression) (parenthesized_expression)])) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
