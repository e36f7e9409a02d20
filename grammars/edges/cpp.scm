; C++ edges (tier 2: by name and member; see grammars/README.md).
(call_expression function: (identifier) @name) @call
(call_expression function: (field_expression argument: (_) @receiver
                                             field: (field_identifier) @name)) @call
(call_expression function: (qualified_identifier scope: (_) @receiver name: (identifier) @name))
  @call
(call_expression function: (template_function name: (identifier) @name)) @call
(new_expression type: (type_identifier) @name) @call
(preproc_include path: [(string_literal (string_content) @module) (system_lib_string) @module])
  @import.module
(using_declaration "namespace" @wildcard [(identifier) (qualified_identifier)] @path) @import.name
(class_specifier name: (type_identifier) @child
  (base_class_clause [(type_identifier) (qualified_identifier)] @inherit.extends))
(struct_specifier name: (type_identifier) @child
  (base_class_clause [(type_identifier) (qualified_identifier)] @inherit.extends))
