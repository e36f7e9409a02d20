; Swift edges (tier 2: by name and receiver; see grammars/README.md).
(call_expression . (simple_identifier) @name) @call
(call_expression . (navigation_expression target: (_) @receiver
                     suffix: (navigation_suffix suffix: (simple_identifier) @name))) @call
(import_declaration (identifier) @module) @import.module
(class_declaration name: (type_identifier) @child
  (inheritance_specifier inherits_from: (user_type (type_identifier) @inherit.extends)))
