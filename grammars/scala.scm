; Scala: classes, traits, objects (modules), enums, functions (with or without a body),
; type aliases, and capitalised `val`s of objects and packages (constants).
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
