; C: functions, structs, unions, enums, typedefs (type), object-like macros and file-level
; `const` variables (constant), function-like macros (function).

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function

; `typedef struct [tag] { ... } name;` is one definition named by the typedef.
(type_definition type: (struct_specifier body: (_))
  declarator: (type_identifier) @name) @definition.struct
(type_definition type: (union_specifier body: (_))
  declarator: (type_identifier) @name) @definition.struct
(type_definition type: (enum_specifier body: (_))
  declarator: (type_identifier) @name) @definition.enum
(type_definition
  type: [(primitive_type) (sized_type_specifier) (type_identifier)
         (struct_specifier !body) (union_specifier !body) (enum_specifier !body)]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator
      (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

(preproc_def name: (identifier) @name value: (_)) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function

; Tagged structs, unions, enums and `const` variables at file level: directly in the file or
; in a preprocessor conditional (a header's include guard). Elsewhere they are typedefs
; (above) or locals.
(translation_unit [
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
  (declaration (type_qualifier "const") declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant])
(preproc_ifdef [
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
  (declaration (type_qualifier "const") declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant])
(preproc_if [
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
  (declaration (type_qualifier "const") declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant])
(preproc_else [
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
  (declaration (type_qualifier "const") declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant])
(preproc_elif [
  (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (union_specifier name: (type_identifier) @name body: (_)) @definition.struct
  (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
  (declaration (type_qualifier "const") declarator: (init_declarator declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ])) @definition.constant])
