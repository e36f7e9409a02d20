; JavaScript edges (see grammars/README.md for the captures).
; Calls: `f()`, `obj.f()`, `obj?.f()`, `super()`, and `new Foo()` (a call of Foo's
; constructor, named Foo). `import('./m')` is an import, below.
(call_expression function: (identifier) @name) @call
(call_expression function: (super) @name) @call
(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @name)) @call
(new_expression constructor: (identifier) @name) @call
(new_expression constructor: (member_expression object: (_) @receiver
                                                property: (property_identifier) @name)) @call

; Imports: default, named (`{a as b}`), namespace (`* as ns`), bare (side effect).
(import_statement (import_clause (identifier) @alias) source: (string (string_fragment) @module))
  @import.default
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @name alias: (_)? @alias)))
  source: (string (string_fragment) @module)) @import.name
(import_statement (import_clause (namespace_import (identifier) @alias))
  source: (string (string_fragment) @module)) @import.module
(import_statement . "import" . source: (string (string_fragment) @module)) @import.side_effect
; Re-exports: `export {a as b} from`, `export * from`, `export * as ns from`.
(export_statement
  (export_clause (export_specifier name: _ @name alias: _? @alias))
  source: (string (string_fragment) @module)) @import.reexport
(export_statement . "export" . "*" @name . "from" source: (string (string_fragment) @module))
  @import.reexport
(export_statement (namespace_export "*" @name (_) @alias) source: (string (string_fragment) @module))
  @import.reexport
; CommonJS: `const x = require('m')`, `const {a, b: c} = require('m')`, bare `require('m')`,
; and dynamic `import('m')`.
(variable_declarator name: (identifier) @alias
  value: (call_expression function: (identifier) @_f arguments: (arguments . (string
    (string_fragment) @module)))
  (#eq? @_f "require")) @import.module
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @name)
  value: (call_expression function: (identifier) @_f arguments: (arguments . (string
    (string_fragment) @module)))
  (#eq? @_f "require")) @import.name
(variable_declarator
  name: (object_pattern (pair_pattern key: (_) @name value: (identifier) @alias))
  value: (call_expression function: (identifier) @_f arguments: (arguments . (string
    (string_fragment) @module)))
  (#eq? @_f "require")) @import.name
(expression_statement (call_expression function: (identifier) @_f
  arguments: (arguments . (string (string_fragment) @module)))
  (#eq? @_f "require")) @import.side_effect
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @module)))
  @import.module

; `class A extends B`, `class A extends mod.B`.
(class_declaration name: (identifier) @child
  (class_heritage [(identifier) (member_expression)] @inherit.extends))
(class name: (identifier) @child
  (class_heritage [(identifier) (member_expression)] @inherit.extends))

; Methods of an object literal bound to a name: `const api = { get() {} }`, `module.exports
; = { get() {} }`, `export default { get() {} }`; the name owns them (it is their `this`).
(variable_declarator name: (identifier) @type
  value: (object (method_definition name: (property_identifier) @name))) @owner
(assignment_expression left: [(identifier) (member_expression)] @type
  right: (object (method_definition name: (property_identifier) @name))) @owner
(export_statement "default" @type
  value: (object (method_definition name: (property_identifier) @name))) @owner

; Locals and fields: `const x = new Foo()`, `const x = make()`, `this.x = new Foo()`,
; `this.x = make()`, `x = new Foo()` in a class.
(variable_declarator name: (identifier) @name
  value: (new_expression constructor: [(identifier) (member_expression)] @type))
  @local.constructed
((variable_declarator name: (identifier) @name
   value: (call_expression function: [(identifier) (member_expression)] @type)) @local.call
  (#not-eq? @type "require"))
(assignment_expression
  left: (member_expression object: (this) property: (property_identifier) @name)
  right: (call_expression function: [(identifier) (member_expression)] @type)) @field.call
(assignment_expression
  left: (member_expression object: (this) property: (property_identifier) @name)
  right: (new_expression constructor: [(identifier) (member_expression)] @type))
  @field.constructed
(field_definition property: (property_identifier) @name
  value: (new_expression constructor: [(identifier) (member_expression)] @type))
  @field.constructed
