; Go edges (see grammars/README.md for the captures).
(package_clause (package_identifier) @package)
; Calls: `f()`, `pkg.F()`, `s.m()`; `go f()` and `defer f()` hold a call like any other.
(call_expression function: (identifier) @name) @call
(call_expression function: (selector_expression operand: (_) @receiver
                                                field: (field_identifier) @name)) @call

; Imports: the path, and its name when given (`f "fmt"`, `_ "x"`, `. "y"`).
(import_spec name: (_)? @alias path: (interpreted_string_literal
  (interpreted_string_literal_content) @module)) @import.module

; Embedded fields and interfaces: a field with a type and no name, a type in an interface.
(type_spec name: (type_identifier) @child type: (struct_type (field_declaration_list
  (field_declaration !name type: [(type_identifier) (qualified_type)] @inherit.embed))))
(type_spec name: (type_identifier) @child type: (struct_type (field_declaration_list
  (field_declaration !name type: (pointer_type (_) @inherit.embed)))))
(type_spec name: (type_identifier) @child type: (interface_type
  (type_elem [(type_identifier) (qualified_type)] @inherit.embed)))

; A method's receiver: its name stands for `self` in the method, its type owns the method.
(method_declaration receiver: (parameter_list (parameter_declaration name: (identifier)
  @selfname)))
(method_declaration receiver: (parameter_list (parameter_declaration
  type: [(type_identifier) (pointer_type (type_identifier)) (generic_type)] @type))
  name: (field_identifier) @name) @owner

; Locals: parameters, `var x Foo`, `x := Foo{}`, `x := &Foo{}`, `x := NewFoo()`,
; `var x = NewFoo()`; struct fields with their types.
(parameter_declaration name: (identifier) @name type: (_) @type) @local.declared
(var_spec name: (identifier) @name type: (_) @type) @local.declared
(short_var_declaration left: (expression_list . (identifier) @name)
  right: (expression_list . [(composite_literal type: (_) @type)
                             (unary_expression operand: (composite_literal type: (_) @type))]))
  @local.constructed
(short_var_declaration left: (expression_list . (identifier) @name)
  right: (expression_list . (call_expression function: [(identifier) (selector_expression)]
                                             @type))) @local.call
(var_spec name: (identifier) @name
  value: (expression_list . (call_expression function: [(identifier) (selector_expression)]
                                             @type))) @local.call
(field_declaration_list (field_declaration name: (field_identifier) @name type: (_) @type)
  @field.declared)

; Result types, for what a call gives back (`x := NewStore()` is a *Store).
(function_declaration name: (identifier) @name result: (_) @type) @local.returns
(method_declaration name: (field_identifier) @name result: (_) @type) @local.returns
