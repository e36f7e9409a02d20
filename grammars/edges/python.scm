; Python edges (see grammars/README.md for the captures).
; Calls: `f()`, `obj.f()`; a decorator with arguments is a call like any other.
(call function: (identifier) @name) @call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @call

; Imports. `import a.b` binds a module; `from m import x` a name; relative levels stay in
; the module text (`..x`, `.`).
(import_statement name: (dotted_name) @module) @import.module
(import_statement
  name: (aliased_import name: (dotted_name) @module alias: (identifier) @alias)) @import.module
(import_from_statement
  module_name: (_) @module name: (dotted_name) @name) @import.name
(import_from_statement
  module_name: (_) @module
  name: (aliased_import name: (dotted_name) @name alias: (identifier) @alias)) @import.name
(import_from_statement module_name: (_) @module (wildcard_import) @name) @import.name

; Bases: keyword arguments (`metaclass=`) are not bases; `Generic[T]` is `Generic`.
(class_definition name: (identifier) @child
  superclasses: (argument_list [(identifier) (attribute)] @inherit.extends))
(class_definition name: (identifier) @child
  superclasses: (argument_list (subscript value: (_) @inherit.extends)))

; Typed locals: `x: Foo`, `x = Foo(...)`, `with Foo(...) as x`, annotated parameters;
; aliases (`x = f`, `x = mod.f`) and literals (`x = []`: the language's own types).
(assignment left: (identifier) @name type: (type (_) @type)) @local.declared
(assignment left: (identifier) @name
  right: (call function: [(identifier) (attribute)] @type)) @local.call
(with_item value: (as_pattern (call function: [(identifier) (attribute)] @type)
  alias: (as_pattern_target (identifier) @name))) @local.call
(assignment left: (identifier) @name !type right: [(identifier) (attribute)] @type) @local.alias
(assignment left: (identifier) @name
  right: [(list) (dictionary) (set) (tuple) (string) (concatenated_string) (list_comprehension)
          (dictionary_comprehension) (set_comprehension) (integer) (float)] @type) @local.literal
(typed_parameter (identifier) @name type: (type (_) @type)) @local.declared
(typed_default_parameter name: (identifier) @name type: (type (_) @type)) @local.declared

; Fields: `self.x: Foo`, `self.x = Foo(...)`, and annotated names in a class body.
((assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)
   type: (type (_) @type)) @field.declared (#eq? @_self "self"))
((assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)
   right: (call function: [(identifier) (attribute)] @type)) @field.call (#eq? @_self "self"))
((assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)
   right: [(list) (dictionary) (set) (tuple) (string) (list_comprehension)
           (dictionary_comprehension) (set_comprehension)] @type) @field.literal
 (#eq? @_self "self"))
(class_definition body: (block
  (expression_statement
    (assignment left: (identifier) @name type: (type (_) @type)) @field.declared)))

; Return types, for what a call gives back (`x = make_cart()`).
(function_definition name: (identifier) @name return_type: (type (_) @type)) @local.returns
