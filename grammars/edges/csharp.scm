; C# edges (tier 2: by name and member; see grammars/README.md).
[(namespace_declaration name: (_) @package) (file_scoped_namespace_declaration name: (_) @package)]
(invocation_expression function: (identifier) @name) @call
(invocation_expression function: (member_access_expression expression: _ @receiver
                                                           name: (identifier) @name)) @call
(invocation_expression function: (generic_name (identifier) @name)) @call
(object_creation_expression type: [(identifier) (qualified_name)] @name) @call
(using_directive !name [(identifier) (qualified_name)] @module) @import.module
(using_directive name: (identifier) @alias [(identifier) (qualified_name)] @module)
  @import.module
(_ name: (identifier) @child (base_list [(identifier) (qualified_name)] @inherit.extends))
(_ name: (identifier) @child (base_list (generic_name (identifier) @inherit.extends)))
