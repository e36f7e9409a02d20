; Zig: functions (`fn`, also `extern fn`), containers bound to a name (`const Foo =
; struct {...}`: struct, also union and opaque; enum and error sets: enum), type aliases
; of builtin types (`const Cents = u64`), and other `const`s of a file or container
; (constant), leaving out imports (`@import`) and plain aliases (`std.mem.Allocator`).
(Decl (FnProto function: (IDENTIFIER) @name)) @definition.function
(Decl (VarDecl variable_type_function: (IDENTIFIER) @name
  (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType ["struct" "union" "opaque"]))))))
  @definition.struct
(Decl (VarDecl variable_type_function: (IDENTIFIER) @name
  (ErrorUnionExpr (SuffixExpr (ContainerDecl (ContainerDeclType "enum"))))))
  @definition.enum
(Decl (VarDecl variable_type_function: (IDENTIFIER) @name
  (ErrorUnionExpr (SuffixExpr (ErrorSetDecl))))) @definition.enum
(Decl (VarDecl "const" variable_type_function: (IDENTIFIER) @name .
  (ErrorUnionExpr (SuffixExpr . (BuildinTypeExpr) .)))) @definition.type
((Decl (VarDecl "const" variable_type_function: (IDENTIFIER) @name . (ErrorUnionExpr) @_value .))
  @definition.constant
  (#not-match? @_value "^(@import|@cImport)|^[A-Za-z_][A-Za-z0-9_.]*$|^(packed |extern )?(struct|enum|union|opaque|error)\\b"))
; A test named by a string (`test "amount applies VAT" { ... }`), named by that string:
; Zig keeps its tests beside the code they test. One named by a declaration (`test
; decodeHex { ... }`) is left out: it would share that declaration's name. `@test`:
; what it holds is test code.
(TestDecl (STRINGLITERALSINGLE) @name) @definition.function @test
