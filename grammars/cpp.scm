; C++: namespaces (module), classes, structs, unions, enums, functions (methods inside a
; class), typedefs and `using` aliases (type), concepts (interface), object-like macros and
; namespace-level or `static` member `const`/`constexpr` variables (constant).
; A method defined outside its class (`Type::name`, `ns::Type::name`) is a `method` named by
; its last part: `name`, `~Type` for a destructor, `operator==` for an operator.

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module

; `(_ (function_declarator ...))` is a pointer or reference return: `T* f()`, `T& f()`.
(function_definition declarator: [
  (function_declarator
    declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)
  (_ (function_declarator
    declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
]) @definition.function

(function_definition declarator: [
  (function_declarator declarator: (qualified_identifier
    name: [(identifier) (operator_name) (destructor_name)] @name))
  (_ (function_declarator declarator: (qualified_identifier
    name: [(identifier) (operator_name) (destructor_name)] @name)))
  (function_declarator declarator: (qualified_identifier name: (qualified_identifier
    name: [(identifier) (operator_name) (destructor_name)] @name)))
  (_ (function_declarator declarator: (qualified_identifier name: (qualified_identifier
    name: [(identifier) (operator_name) (destructor_name)] @name))))
]) @definition.method

; `typedef struct [tag] { ... } name;` is one definition named by the typedef.
(type_definition type: [(struct_specifier body: (_)) (union_specifier body: (_))]
  declarator: (type_identifier) @name) @definition.struct
(type_definition type: (enum_specifier body: (_))
  declarator: (type_identifier) @name) @definition.enum
(type_definition
  type: [(primitive_type) (sized_type_specifier) (type_identifier) (qualified_identifier)
         (template_type) (struct_specifier !body) (union_specifier !body)
         (enum_specifier !body) (class_specifier !body)]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator
      (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(concept_definition name: (identifier) @name) @definition.interface

(preproc_def name: (identifier) @name value: (_)) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function

; A type nested in a class is the member declaration holding it (its comment is above that).
(field_declaration
  type: (class_specifier name: (type_identifier) @name body: (_))) @definition.class
(field_declaration type: [
  (struct_specifier name: (type_identifier) @name body: (_))
  (union_specifier name: (type_identifier) @name body: (_))]) @definition.struct
(field_declaration
  type: (enum_specifier name: (type_identifier) @name body: (_))) @definition.enum
(field_declaration
  (storage_class_specifier "static")
  (type_qualifier ["const" "constexpr"])
  declarator: (field_identifier) @name) @definition.constant

; Tagged types and `const`/`constexpr` variables at namespace level: in the file, a namespace
; or `extern "C"` block (declaration_list), a template, or a preprocessor conditional (a
; header's include guard). Elsewhere they are typedefs (above), members (above) or locals.
(translation_unit [
  (class_specifier name: (type_identifier) @name body: (_)) @definition.class
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
  (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant])
(declaration_list [
  (class_specifier name: (type_identifier) @name body: (_)) @definition.class
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
  (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant])
(template_declaration [
  (class_specifier name: (type_identifier) @name body: (_)) @definition.class
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  ; A (partial) specialisation, `template <...> struct formatter<T, Char> {...}`, is named
  ; by its template: `semlith symbol formatter` lists them beside the primary one.
  (class_specifier name: (template_type name: (type_identifier) @name) body: (_))
    @definition.class
  (struct_specifier name: (template_type name: (type_identifier) @name) body: (_))
    @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
  (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant])
(preproc_ifdef [
  (class_specifier name: (type_identifier) @name body: (_)) @definition.class
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
  (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant])
(preproc_if [
  (class_specifier name: (type_identifier) @name body: (_)) @definition.class
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
  (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant])
(preproc_else [
  (class_specifier name: (type_identifier) @name body: (_)) @definition.class
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
  (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant])
(preproc_elif [
  (class_specifier name: (type_identifier) @name body: (_)) @definition.class
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
  (declaration (type_qualifier ["const" "constexpr"]) declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant])
