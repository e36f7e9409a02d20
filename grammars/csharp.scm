; C#: namespaces (module), classes, records, structs, interfaces, enums, delegates and
; `using X = ...` aliases (type), methods, constructors, local functions, properties with
; code (an accessor with a body, `=> expr`: methods; not `{ get; set; }`), and `const` or
; `static readonly` fields (constant).
; Attributes (`[Obsolete]`) are `attribute_list` children of the declaration itself.
; A file-scoped `namespace X;` is one line holding nothing (like Java's `package`): skipped.
(namespace_declaration name: (_) @name) @definition.module
(class_declaration name: (identifier) @name) @definition.class
; `record Foo` and `record class Foo` are classes, `record struct Foo` a struct: told apart
; by the text before the body, as a query cannot ask for the absence of the `struct` token.
((record_declaration name: (identifier) @name) @definition.class
  (#not-match? @definition.class "^[^{]*\\brecord\\s+struct\\b"))
((record_declaration name: (identifier) @name) @definition.struct
  (#match? @definition.struct "^[^{]*\\brecord\\s+struct\\b"))
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(using_directive name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(destructor_declaration name: (identifier) @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function
(property_declaration name: (identifier) @name
  accessors: (accessor_list (accessor_declaration body: (_)))) @definition.method
(property_declaration name: (identifier) @name value: (arrow_expression_clause))
  @definition.method
(field_declaration [(modifier "const") ((modifier "static") (modifier "readonly"))]
  (variable_declaration (variable_declarator name: (identifier) @name)))
  @definition.constant
