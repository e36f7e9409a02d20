; Go: functions, methods (also an interface's), types (struct, interface, other, alias),
; constants and package-level variables (`var ErrMissing = errors.New(...)`, the sentinel
; errors and singletons a package exports; `_` is no name, and a function's locals are
; not definitions). A single `type X ...` / `const X = ...` is captured as the whole
; declaration, so the doc comment above the keyword attaches to it; each spec of a grouped
; `type ( ... )`, `const ( ... )` or `var ( ... )` is a definition of its own. (Query anchors skip anonymous nodes such as
; `(`, so the two shapes are told apart by the declaration's text.)
(function_declaration name: (identifier) @name) @definition.function
; A method is qualified by its receiver's type, as Go's documentation names it:
; `func (c *Cache) Get` is `Cache.Get` (`(*Cache[K, V])` too). A receiver in a shape not
; listed here keeps the plain name.
(method_declaration name: (field_identifier) @name) @definition.method
(method_declaration
  receiver: (parameter_list (parameter_declaration type: [
    (type_identifier) @qualifier
    (pointer_type (type_identifier) @qualifier)
    (generic_type type: (type_identifier) @qualifier)
    (pointer_type (generic_type type: (type_identifier) @qualifier))]))
  name: (field_identifier) @name) @definition.method
(method_elem name: (field_identifier) @name) @definition.method

((type_declaration (type_spec name: (type_identifier) @name type: (struct_type)))
  @definition.struct (#not-match? @definition.struct "^type\\s*\\("))
((type_declaration (type_spec name: (type_identifier) @name type: (interface_type)))
  @definition.interface (#not-match? @definition.interface "^type\\s*\\("))
((type_declaration [
    (type_spec name: (type_identifier) @name
      type: (_) @_type (#not-match? @_type "^(struct|interface)\\s*\\{"))
    (type_alias name: (type_identifier) @name)])
  @definition.type (#not-match? @definition.type "^type\\s*\\("))
((const_declaration (const_spec name: (identifier) @name))
  @definition.constant (#not-match? @definition.constant "^const\\s*\\("))

((type_declaration
    (type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct)
  @_group (#match? @_group "^type\\s*\\("))
((type_declaration
    (type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface)
  @_group (#match? @_group "^type\\s*\\("))
((type_declaration [
    (type_spec name: (type_identifier) @name
      type: (_) @_type (#not-match? @_type "^(struct|interface)\\s*\\{"))
    (type_alias name: (type_identifier) @name)] @definition.type)
  @_group (#match? @_group "^type\\s*\\("))
((const_declaration (const_spec name: (identifier) @name) @definition.constant)
  @_group (#match? @_group "^const\\s*\\("))

(source_file (var_declaration
  (var_spec name: (identifier) @name (#not-eq? @name "_"))) @definition.variable)
(source_file (var_declaration (var_spec_list
  (var_spec name: (identifier) @name (#not-eq? @name "_")) @definition.variable)))
