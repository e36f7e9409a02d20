; TypeScript and TSX edges (edges/tsx.scm includes this file):
; what javascript.scm finds, plus `implements`, interfaces' `extends`, `import x = require()`,
; and the types that annotations declare (parameters, variables, fields).
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

(import_statement (import_require_clause (identifier) @alias
  source: (string (string_fragment) @module))) @import.module

; `class A extends B<T> implements I, J<K>`; `interface K extends L`.
(_ name: (type_identifier) @child
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @inherit.extends)))
(_ name: (type_identifier) @child
  (class_heritage (implements_clause [(type_identifier) (nested_type_identifier)]
    @inherit.implements)))
(_ name: (type_identifier) @child
  (class_heritage (implements_clause (generic_type name: (_) @inherit.implements))))
(interface_declaration name: (type_identifier) @child
  (extends_type_clause type: [(type_identifier) (nested_type_identifier)] @inherit.extends))
(interface_declaration name: (type_identifier) @child
  (extends_type_clause type: (generic_type name: (_) @inherit.extends)))

; Methods of an object literal bound to a name: `const api = { get() {} }`, `module.exports
; = { get() {} }`, `export default { get() {} }`; the name owns them (it is their `this`).
(variable_declarator name: (identifier) @type
  value: (object (method_definition name: (property_identifier) @name))) @owner
(assignment_expression left: [(identifier) (member_expression)] @type
  right: (object (method_definition name: (property_identifier) @name))) @owner
(export_statement "default" @type
  value: (object (method_definition name: (property_identifier) @name))) @owner

; Locals: `const x = new Foo()`, `const x = make()`, `let x: Foo`, annotated parameters;
; fields: `this.x = new Foo()`, `this.x = make()`, `private x: Foo`, `x = new Foo()` in a
; class, `constructor(private x: Foo)`.
(variable_declarator name: (identifier) @name
  value: (new_expression constructor: [(identifier) (member_expression)] @type))
  @local.constructed
(variable_declarator name: (identifier) @name type: (type_annotation (_) @type))
  @local.declared
([(required_parameter pattern: (identifier) @name type: (type_annotation (_) @type))
  (optional_parameter pattern: (identifier) @name type: (type_annotation (_) @type))])
  @local.declared
(required_parameter (accessibility_modifier) pattern: (identifier) @name
  type: (type_annotation (_) @type)) @field.declared
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
(public_field_definition name: (property_identifier) @name
  value: (new_expression constructor: [(identifier) (member_expression)] @type))
  @field.constructed
(public_field_definition name: (property_identifier) @name type: (type_annotation (_) @type))
  @field.declared

; Return types, for what a call gives back (`const x = makeCart()`).
(function_declaration name: (identifier) @name
  return_type: (type_annotation (_) @type)) @local.returns
(method_definition name: (property_identifier) @name
  return_type: (type_annotation (_) @type)) @local.returns
