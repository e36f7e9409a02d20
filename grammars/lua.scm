; Lua: `function name()`, `function M.name()`, `function M:name()` (a method),
; `local function name()`, and functions assigned to names (`local f = function`,
; `M.f = function`).
(function_declaration name: (identifier) @name) @definition.function
(function_declaration name: (dot_index_expression field: (identifier) @name))
  @definition.function
(function_declaration name: (method_index_expression method: (identifier) @name))
  @definition.method
(variable_declaration (assignment_statement
  (variable_list . name: (identifier) @name)
  (expression_list . value: (function_definition)))) @definition.function
; The same without `local` (a statement of a file or block, not of a `local` declaration).
(chunk (assignment_statement
  (variable_list . name: [(identifier) @name (dot_index_expression field: (identifier) @name)])
  (expression_list . value: (function_definition))) @definition.function)
(block (assignment_statement
  (variable_list . name: [(identifier) @name (dot_index_expression field: (identifier) @name)])
  (expression_list . value: (function_definition))) @definition.function)
