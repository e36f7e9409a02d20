; Scala: classes, traits, objects (modules), enums, functions (with or without a body),
; type aliases, capitalised `val`s of objects and packages (constants), and Scala 3's
; `given` instances (impl: named, or by the type they give, like a Rust impl).
(class_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.interface
(object_definition name: (identifier) @name) @definition.module
(enum_definition name: (identifier) @name) @definition.enum
(function_definition name: (identifier) @name) @definition.function
(function_declaration name: (identifier) @name) @definition.function
(type_definition name: (type_identifier) @name) @definition.type
(object_definition body: (template_body
  (val_definition pattern: (identifier) @name (#match? @name "^[A-Z]")) @definition.constant))
(compilation_unit
  (val_definition pattern: (identifier) @name (#match? @name "^[A-Z]")) @definition.constant)
(given_definition name: (identifier) @name) @definition.impl
(given_definition !name
  return_type: [(type_identifier) @name (generic_type type: (type_identifier) @name)])
  @definition.impl
; A test framework's blocks (`test("adds two numbers") { ... }`: munit, utest,
; ScalaTest's FunSuite; `describe`/`it` of FunSpec), named by their string, as Jest's
; are; `@test`: test code. One named as a function could be (`test("parse")`) is left
; out: calls to `parse` would find it.
((call_expression
    function: (call_expression function: (identifier) @_fn
      arguments: (arguments . (string) @name .))
    arguments: (block))
  @definition.function @test
  (#match? @_fn "^(test|describe|it)$")
  (#not-match? @name "^\"[A-Za-z_][A-Za-z0-9_]*\"$"))
