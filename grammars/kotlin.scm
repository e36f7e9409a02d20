; Kotlin: classes (the keyword tells interface and enum apart), objects and companion
; objects (singleton classes: `class`), functions, `const val` constants and type
; aliases. Its grammar has no field names.
(class_declaration "interface" (type_identifier) @name) @definition.interface
(class_declaration "enum" (type_identifier) @name (enum_class_body)) @definition.enum
(class_declaration "class" (type_identifier) @name (class_body)) @definition.class
; A class without a body: `data class Point(val x: Int)`, `sealed class Shape`.
(class_declaration "class" (type_identifier) @name .) @definition.class
(class_declaration "class" (type_identifier) @name
  [(primary_constructor) (delegation_specifier) (type_parameters) (type_constraints)] .)
  @definition.class
(object_declaration (type_identifier) @name) @definition.class
(companion_object (type_identifier) @name) @definition.class
(function_declaration (simple_identifier) @name) @definition.function
(property_declaration
  (modifiers (property_modifier) @_const (#eq? @_const "const"))
  (variable_declaration (simple_identifier) @name)) @definition.constant
(type_alias (type_identifier) @name) @definition.type
; A property with a getter or setter of its own is code, as Swift's computed properties
; are: `val isEmpty: Boolean get() = size == 0`. The grammar puts the accessors beside
; the property, not inside it: each is a `@clause` the property grows over.
((property_declaration (variable_declaration (simple_identifier) @name)) @definition.function
  . [(getter) (setter)])
([(property_declaration) (getter) (setter)] . [(getter) (setter)] @clause)
; A property of the file itself (`@JvmField public val STAR: WildcardTypeName = ...`,
; `internal val DEFAULT_COMPARATOR = ...`): a value the package exports, as Go's
; package-level `var` is; a class's properties are not definitions. A `const val` is the
; constant above, and one with an accessor the function above: a variable yields to them.
(source_file (property_declaration (variable_declaration (simple_identifier) @name))
  @definition.variable)
