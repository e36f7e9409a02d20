; Rust edges (see grammars/README.md for the captures).
; Calls: `f()`, `a::b::f()`, `Foo::new()`, `x.f()`, `x.f::<T>()`, and macros (`vec!`).
(call_expression function: (identifier) @name) @call
(call_expression function: (scoped_identifier path: (_) @receiver name: (identifier) @name))
  @call
(call_expression function: (field_expression value: (_) @receiver
                                             field: (field_identifier) @name)) @call
(call_expression function: (generic_function function: (identifier) @name)) @call
(call_expression function: (generic_function function: (scoped_identifier path: (_) @receiver
                                                                          name: (identifier) @name))) @call
(call_expression function: (generic_function function: (field_expression value: (_) @receiver
                                                                         field: (field_identifier) @name))) @call
(macro_invocation macro: (identifier) @name) @call
(macro_invocation macro: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @call

; Imports: use trees are flattened in code (`a::{b, c as d}`); `pub use` re-exports;
; `extern crate x` and `mod x;` bind a module.
(use_declaration argument: (_) @use) @import.name
(extern_crate_declaration name: (identifier) @module alias: (identifier)? @alias) @import.module
(mod_item !body name: (identifier) @module) @import.module

; `impl Trait for Type`: the type's impl block implements the trait.
(impl_item trait: [(type_identifier) (scoped_type_identifier)] @inherit.impl
  type: [(type_identifier) (scoped_type_identifier name: (_) @child)
         (generic_type type: [(type_identifier) @child
                              (scoped_type_identifier name: (_) @child)])])
(impl_item trait: [(type_identifier) (scoped_type_identifier)] @inherit.impl
  type: (type_identifier) @child)
(impl_item trait: (generic_type type: (_) @inherit.impl)
  type: [(type_identifier) @child (generic_type type: (type_identifier) @child)])
; A trait's supertraits: `trait A: B + C`.
(trait_item name: (type_identifier) @child
  bounds: (trait_bounds [(type_identifier) (scoped_type_identifier)] @inherit.extends))

; Locals: `let x: Foo`, `let x = Foo::new()`, `let x = Foo { .. }`, typed parameters;
; struct fields with their types.
(let_declaration pattern: (identifier) @name type: (_) @type) @local.declared
(let_declaration pattern: (identifier) @name
  value: (call_expression function: [(identifier) (scoped_identifier)] @type)) @local.call
(let_declaration pattern: (identifier) @name
  value: (struct_expression name: (_) @type)) @local.constructed
(parameter pattern: (identifier) @name type: (_) @type) @local.declared
(field_declaration_list (field_declaration name: (field_identifier) @name type: (_) @type)
  @field.declared)

; Return types, for what a call gives back (`let x = Store::new()` is a Self).
(function_item name: (identifier) @name return_type: (_) @type) @local.returns
