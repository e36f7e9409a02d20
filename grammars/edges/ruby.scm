; Ruby edges (tier 2: by name and receiver; see grammars/README.md).
; A call with no arguments and no receiver parses as an identifier: not recorded.
((call !receiver method: (identifier) @name) @call
  (#not-match? @name "^(require|require_relative|load|include|extend|prepend)$"))
(call receiver: (_) @receiver method: (_) @name) @call
((call method: (identifier) @_req arguments: (argument_list . (string (string_content) @module)))
  @import.module (#match? @_req "^(require|require_relative|load)$"))
(class name: (_) @child superclass: (superclass (_) @inherit.extends))
([(class name: (_) @child (body_statement (call method: (identifier) @_mix
    arguments: (argument_list [(constant) (scope_resolution)] @inherit.mixin))))
  (module name: (_) @child (body_statement (call method: (identifier) @_mix
    arguments: (argument_list [(constant) (scope_resolution)] @inherit.mixin))))]
  (#match? @_mix "^(include|extend|prepend)$"))
