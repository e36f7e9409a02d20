; Haskell edges (tier 2: applications by name and module; see grammars/README.md).
(apply function: (variable) @name) @call
(apply function: (qualified module: (module) @receiver id: (variable) @name)) @call
(import module: (module) @module alias: (module)? @alias) @import.module
