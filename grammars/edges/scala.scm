; Scala edges (tier 2: by name and receiver; see grammars/README.md).
(call_expression function: (identifier) @name) @call
(call_expression function: (field_expression value: (_) @receiver field: (identifier) @name))
  @call
(instance_expression . (type_identifier) @name) @call
; `extends G with H`: a field inside a field matches only its first node (tree-sitter
; 0.25), so the types are matched without their field name.
([(class_definition name: (identifier) @child extend: (extends_clause (type_identifier)
                                                                     @inherit.extends))
  (object_definition name: (identifier) @child extend: (extends_clause (type_identifier)
                                                                       @inherit.extends))
  (trait_definition name: (identifier) @child extend: (extends_clause (type_identifier)
                                                                      @inherit.extends))])
