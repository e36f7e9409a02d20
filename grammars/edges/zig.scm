; Zig edges (tier 2: by name and receiver; see grammars/README.md). A call is a suffix
; chain: `f(x)` or `a.b.f(x)`, whose receiver is the chain's text before the name.
(SuffixExpr . variable_type_function: (IDENTIFIER) @name . (FnCallArguments)) @call
(SuffixExpr (FieldOrFnCall function_call: (IDENTIFIER) @name)) @chain @call
((VarDecl variable_type_function: (IDENTIFIER) @alias
   (ErrorUnionExpr (SuffixExpr (BUILTINIDENTIFIER) @_imp (FnCallArguments
     (ErrorUnionExpr (SuffixExpr (STRINGLITERALSINGLE) @module))))))
  @import.module (#eq? @_imp "@import"))
