; Elixir edges (tier 2: by name and module; see grammars/README.md). Definitions and
; directives are macro calls in the tree; they are not recorded as calls.
((call target: (identifier) @name) @call
  (#not-match? @name "^(def|defp|defmacro|defmacrop|defmodule|defprotocol|defimpl|defstruct|defdelegate|defguard|defguardp|defexception|defoverridable|alias|import|use|require|quote|unquote|when)$"))
(call target: (dot left: (_) @receiver right: (identifier) @name)) @call
((call target: (identifier) @_directive (arguments . (alias) @module)) @import.module
  (#match? @_directive "^(alias|import|use|require)$"))
