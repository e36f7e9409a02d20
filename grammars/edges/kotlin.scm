; Kotlin edges (tier 2: by name and receiver; see grammars/README.md).
(package_header (identifier) @package)
(call_expression . (simple_identifier) @name) @call
(call_expression . (navigation_expression (_) @chain .
                                          (navigation_suffix (simple_identifier) @name))) @call
(import_header (identifier) @path (import_alias (type_identifier) @alias)?) @import.name
(class_declaration (type_identifier) @child
  (delegation_specifier [(user_type (type_identifier) @inherit.extends)
                         (constructor_invocation (user_type (type_identifier) @inherit.extends))]))
