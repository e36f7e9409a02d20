; Lua edges (tier 2: by name and receiver; see grammars/README.md).
((function_call name: (identifier) @name) @call (#not-eq? @name "require"))
(function_call name: (dot_index_expression table: (_) @receiver field: (identifier) @name)) @call
(function_call name: (method_index_expression table: (_) @receiver method: (identifier) @name))
  @call
((function_call name: (identifier) @_req
   arguments: (arguments . (string content: (string_content) @module))) @import.module
  (#eq? @_req "require"))
