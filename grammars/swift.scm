; Swift: classes, actors, structs, enums, extensions (impl, named by the extended type),
; protocols, functions and initialisers, computed properties (`var body: some View { ... }`,
; `var description: String { get { ... } }`: function-like, so a method in a type), type
; aliases, and `let` constants at the top level or `static let` in a type.
(class_declaration declaration_kind: ["class" "actor"] name: (type_identifier) @name)
  @definition.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration declaration_kind: "extension" name: (user_type) @name) @definition.impl
(protocol_declaration name: (type_identifier) @name) @definition.interface
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.function
(init_declaration "init" @name) @definition.function
(property_declaration name: (pattern bound_identifier: (simple_identifier) @name)
  computed_value: (computed_property)) @definition.function
(typealias_declaration name: (type_identifier) @name) @definition.type
(source_file (property_declaration
  (value_binding_pattern) @_let (#eq? @_let "let")
  name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant)
(property_declaration
  (modifiers (property_modifier) @_static (#eq? @_static "static"))
  (value_binding_pattern) @_let (#eq? @_let "let")
  name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant
