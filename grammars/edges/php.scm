; PHP edges (tier 2: by name and receiver; see grammars/README.md).
(namespace_definition name: (namespace_name) @package)
(function_call_expression function: [(name) (qualified_name)] @name) @call
(member_call_expression object: (_) @receiver name: (name) @name) @call
(nullsafe_member_call_expression object: (_) @receiver name: (name) @name) @call
(scoped_call_expression scope: (_) @receiver name: (name) @name) @call
(object_creation_expression [(name) (qualified_name)] @name) @call
(namespace_use_clause . [(name) (qualified_name)] @path alias: (name)? @alias) @import.name
(class_declaration name: (name) @child (base_clause [(name) (qualified_name)] @inherit.extends))
(class_declaration name: (name) @child
  (class_interface_clause [(name) (qualified_name)] @inherit.implements))
