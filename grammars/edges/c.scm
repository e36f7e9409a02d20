; C edges (tier 2: by name and member; see grammars/README.md).
(call_expression function: (identifier) @name) @call
(call_expression function: (field_expression argument: (_) @receiver
                                             field: (field_identifier) @name)) @call
(preproc_include path: [(string_literal (string_content) @module) (system_lib_string) @module])
  @import.module
