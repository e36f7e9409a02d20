; PHP: namespaces with a body, classes, interfaces, traits, enums, functions, methods
; and constants (`const X = ...` at the top level or in a class).
(namespace_definition name: (namespace_name) @name body: (compound_statement)) @definition.module
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.interface
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.function
(const_declaration (const_element (name) @name)) @definition.constant
