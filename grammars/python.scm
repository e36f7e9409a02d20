; Python: classes and functions (methods are functions inside a class).
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
