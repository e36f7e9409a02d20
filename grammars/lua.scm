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
; A function handed to a call whose result is assigned (`M.horizontal =
; make_documented_layout("horizontal", {...}, function(self, ...) ... end)`, `local on_key
; = debounce(function() ... end)`): the name holds what the wrapper made of the function.
; At a file's top level only: in a function, `local ok = pcall(function() ... end)` is the
; outcome of a call, not a function.
(chunk (variable_declaration (assignment_statement
  (variable_list . name: (identifier) @name)
  (expression_list . value: (function_call arguments: (arguments (function_definition))))))
  @definition.function)
(chunk (assignment_statement
  (variable_list . name: [(identifier) @name (dot_index_expression field: (identifier) @name)])
  (expression_list . value: (function_call arguments: (arguments (function_definition)))))
  @definition.function)
; A function assigned by a string key (`M["x-y"] = function`, busted-style
; `tests["parses a line"] = function`), named by the string.
(chunk (assignment_statement
  (variable_list . name: (bracket_index_expression field: (string content: (string_content) @name)))
  (expression_list . value: (function_definition))) @definition.function)
(block (assignment_statement
  (variable_list . name: (bracket_index_expression field: (string content: (string_content) @name)))
  (expression_list . value: (function_definition))) @definition.function)
; A function in a table constructor: a module returned as a table (`return { setup =
; function(opts) ... end }`), a metatable's `__call = function(self, ...)`.
(field name: [(identifier) @name (string content: (string_content) @name)]
  value: (function_definition)) @definition.function
; A local bound to what a function called on the spot returns (`local gen = (function()
; ... end)()`): the function that builds it is its definition.
(variable_declaration (assignment_statement
  (variable_list . name: (identifier) @name)
  (expression_list . value: (function_call name: (parenthesized_expression
    (function_definition)))))) @definition.function
; busted's blocks (`describe("spec", function() ... end)`, `it`, `test`, `pending`),
; named by their string, as Zig's and Jest's tests are; `@test`: test code. One named as
; a function could be (`describe("setup", ...)`) is left out: calls to `setup` would find it.
((function_call name: (identifier) @_fn
    arguments: (arguments . (string content: (string_content) @name) . (function_definition)))
  @definition.function @test
  (#match? @_fn "^(describe|it|test|pending|insulate|expose)$")
  (#not-match? @name "^[A-Za-z_][A-Za-z0-9_]*$"))
