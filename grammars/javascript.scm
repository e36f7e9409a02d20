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
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (class))) @definition.class
(variable_declaration
  (variable_declarator name: (identifier) @name value: (class))) @definition.class
; Functions assigned to members at top level (inside a function such an assignment is a
; callback being installed, not a definition). `exports.f = function () {}` and
; `module.exports.f = ...` are functions of the module; `proto.handle = function handle()
; {}` and `Foo.prototype.bar = () => {}` are methods of their object, which qualifies them
; (`proto.handle`, `Foo.bar`); a chained `req.get = req.header = function () {}` is named by
; its first member.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: [(identifier) (member_expression)] @_object
        property: (property_identifier) @name)
      right: [(arrow_function) (function_expression) (generator_function)
              (assignment_expression right: [(arrow_function) (function_expression) (generator_function)])])
    (#match? @_object "^(module\\.)?exports$")) @definition.function)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: [(identifier) (member_expression)] @qualifier
        property: (property_identifier) @name)
      right: [(arrow_function) (function_expression) (generator_function)
              (assignment_expression right: [(arrow_function) (function_expression) (generator_function)])])
    (#not-match? @qualifier "^(module\\.)?exports$")
    (#not-eq? @qualifier "module")) @definition.method)
; `Foo.prototype.bar = function () {}` anywhere (in a module wrapper, say): always a method.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression property: (property_identifier) @_prototype) @qualifier
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])
  (#eq? @_prototype "prototype")) @definition.method
; `module.exports = function createApplication() {}` is that function; an anonymous one is
; named `exports`.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
      right: (function_expression name: (identifier) @name))
    (#eq? @_module "module") (#eq? @_exports "exports")) @definition.function)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (identifier) @_module property: (property_identifier) @name)
      right: [(arrow_function) (function_expression !name) (generator_function !name)])
    (#eq? @_module "module") (#eq? @name "exports")) @definition.function)
; A named function expression passed to a call at top level: `defineGetter(req, 'ip',
; function ip() {})`, `app.get("/", function home(req, res) {})`.
(program
  (expression_statement
    (call_expression
      arguments: (arguments (function_expression name: (identifier) @name)))) @definition.function)
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
