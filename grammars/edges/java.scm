; Java edges (see grammars/README.md for the captures).
(package_declaration [(identifier) (scoped_identifier)] @package)
; Calls: `m()`, `x.m()`, `super.m()`, `this(...)`/`super(...)`, and `new Foo()`.
(method_invocation !object name: (identifier) @name) @call
(method_invocation object: (_) @receiver name: (identifier) @name) @call
(explicit_constructor_invocation constructor: [(super) (this)] @name) @call
(object_creation_expression type: [(type_identifier) (scoped_type_identifier)] @name) @call
(object_creation_expression type: (generic_type [(type_identifier) (scoped_type_identifier)]
                                                @name)) @call

; Imports: `import a.b.C;`, `import a.b.*;`, and their `static` forms.
((import_declaration [(identifier) (scoped_identifier)] @path . (asterisk)? @wildcard)
  @import.name (#not-match? @import.name "^import\\s+static\\b"))
((import_declaration [(identifier) (scoped_identifier)] @path . (asterisk)? @wildcard)
  @import.static (#match? @import.static "^import\\s+static\\b"))

; `class A extends B<T> implements I, J<K>`; `interface K extends L, M`.
(class_declaration name: (identifier) @child
  superclass: (superclass [(type_identifier) (scoped_type_identifier)] @inherit.extends))
(class_declaration name: (identifier) @child
  superclass: (superclass (generic_type . (_) @inherit.extends)))
(_ name: (identifier) @child
  interfaces: (super_interfaces (type_list [(type_identifier) (scoped_type_identifier)]
                                           @inherit.implements)))
(_ name: (identifier) @child
  interfaces: (super_interfaces (type_list (generic_type . (_) @inherit.implements))))
(interface_declaration name: (identifier) @child
  (extends_interfaces (type_list [(type_identifier) (scoped_type_identifier)]
                                 @inherit.extends)))
(interface_declaration name: (identifier) @child
  (extends_interfaces (type_list (generic_type . (_) @inherit.extends))))

; Locals: `Foo x = ...`, `var x = new Foo()`, parameters; fields (`Foo x;` in a class).
((local_variable_declaration type: (_) @type declarator: (variable_declarator name: (_) @name))
  @local.declared (#not-eq? @type "var"))
((local_variable_declaration type: (_) @_var declarator: (variable_declarator name: (_) @name
   value: (object_creation_expression type: (_) @type))) @local.constructed
  (#eq? @_var "var"))
(formal_parameter type: (_) @type name: (identifier) @name) @local.declared
(field_declaration type: (_) @type declarator: (variable_declarator name: (_) @name))
  @field.declared

; Return types, for what a call gives back (`var x = shop.cart()`).
(method_declaration type: (_) @type name: (identifier) @name) @local.returns
