; Bash edges (tier 2: commands by name; see grammars/README.md). `source f` and `. f` import.
((command name: (command_name) @name) @call (#not-match? @name "^(source|\\.)$"))
((command name: (command_name) @_src argument: (_) @module) @import.module
  (#match? @_src "^(source|\\.)$"))
