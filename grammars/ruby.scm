; Ruby: modules, classes, methods (`def`, `def self.x`) and constants.
(module name: [(constant) (scope_resolution)] @name) @definition.module
(class name: [(constant) (scope_resolution)] @name) @definition.class
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function
; `CONST = value` in a class or module body or at the top level (never inside a method).
(program (assignment left: (constant) @name) @definition.constant)
(class body: (body_statement (assignment left: (constant) @name) @definition.constant))
(module body: (body_statement (assignment left: (constant) @name) @definition.constant))
