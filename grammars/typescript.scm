; TypeScript and TSX (tsx.scm includes this file): what
; javascript.scm finds (classes are named by a type_identifier here), plus abstract classes,
; interfaces and their method signatures, enums, type aliases and namespaces (module).
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(type_alias_declaration name: (type_identifier) @name) @definition.type

; A bare `namespace X {}` is an expression statement, which holds its doc comment; `export`
; and `declare` wrap a definition (see definitions.py). `declare module "x" {}` is named `x`.
(expression_statement
  (internal_module name: [(identifier) (nested_identifier)] @name)) @definition.module
(export_statement
  declaration: (internal_module
    name: [(identifier) (nested_identifier)] @name) @definition.module)
(ambient_declaration
  (internal_module name: [(identifier) (nested_identifier)] @name) @definition.module)
(module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: (string (string_fragment) @name)) @definition.module

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(method_signature name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method
; A class field holding a function: `onClick = (event) => { ... }`.
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method
; `declare function f(): T;` (a bodiless signature elsewhere is an overload of a function).
(ambient_declaration (function_signature name: (identifier) @name) @definition.function)
; A function bound to a name through a cast or parentheses: `export const createStore =
; ((init) => ...) as CreateStore`, `const f = (() => {}) satisfies F`.
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(as_expression (parenthesized_expression [(arrow_function) (function_expression)]))
            (satisfies_expression
              (parenthesized_expression [(arrow_function) (function_expression)]))
            (parenthesized_expression [(arrow_function) (function_expression)])])) @definition.function
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
              (ternary_expression) (parenthesized_expression) (as_expression)
              (satisfies_expression)])) @definition.constant
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
                (ternary_expression) (parenthesized_expression) (as_expression)
                (satisfies_expression)])) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
