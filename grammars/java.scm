; Java: classes, records, interfaces, annotation types, enums, methods, constructors and
; `static final` fields (constants). Annotations are inside `modifiers`, so part of the node.
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method
(field_declaration
  [(modifiers "static" "final") (modifiers "final" "static")]
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant
(constant_declaration
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant
