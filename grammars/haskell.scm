; Haskell: `data`, `newtype` and `type` declarations are all `type`; a `class` is an
; `interface`, an `instance` an `impl` named by its type.
;
; A function is its type signature, or its first equation when it has none; each
; equation right after the signature or an equation of the same name is a `@clause` of
; it (Haskell writes one function as several sibling equations). "First" is spelled out
; by what comes before it: nothing, a node without a name (a comment, a pragma), or one
; with another name. Equations in `where` blocks are not captured.
(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synomym name: (name) @name) @definition.type
(class name: (name) @name) @definition.interface
(instance patterns: (type_patterns) @name) @definition.impl

; Top level.
(declarations (signature name: (_) @name) @definition.function)
(declarations . (function name: (_) @name) @definition.function)
(declarations . (bind name: (_) @name) @definition.function)
(declarations (_ !name) . (function name: (_) @name) @definition.function)
(declarations (_ !name) . (bind name: (_) @name) @definition.function)
(declarations (_ name: (_) @_other) . (function name: (_) @name) @definition.function
  (#not-eq? @_other @name))
(declarations (_ name: (_) @_other) . (bind name: (_) @name) @definition.function
  (#not-eq? @_other @name))
; After `x, y :: Int` (whose `name` field is the `x` in its list).
(declarations (signature names: (binding_list)) . (bind name: (_) @name) @definition.function)
(declarations (_ name: (_) @_previous) . (function name: (_) @name) @clause
  (#eq? @_previous @name))
(declarations (_ name: (_) @_previous) . (bind name: (_) @name) @clause
  (#eq? @_previous @name))

; Class methods are their signatures; a default implementation continues one.
(class_declarations (signature name: (_) @name) @definition.function)
(class_declarations (_ name: (_) @_previous) . (function name: (_) @name) @clause
  (#eq? @_previous @name))
(class_declarations (_ name: (_) @_previous) . (bind name: (_) @name) @clause
  (#eq? @_previous @name))

; Instance methods.
(instance_declarations . (function name: (_) @name) @definition.function)
(instance_declarations . (bind name: (_) @name) @definition.function)
(instance_declarations (_ !name) . (function name: (_) @name) @definition.function)
(instance_declarations (_ !name) . (bind name: (_) @name) @definition.function)
(instance_declarations (_ name: (_) @_other) . (function name: (_) @name) @definition.function
  (#not-eq? @_other @name))
(instance_declarations (_ name: (_) @_other) . (bind name: (_) @name) @definition.function
  (#not-eq? @_other @name))
(instance_declarations (_ name: (_) @_previous) . (function name: (_) @name) @clause
  (#eq? @_previous @name))
(instance_declarations (_ name: (_) @_previous) . (bind name: (_) @name) @clause
  (#eq? @_previous @name))
