; Elixir: every definition is a call, told apart by its target: `defmodule` (module),
; `defprotocol` (interface), `defimpl` (impl, named by its `for:` type when it has one),
; and `def`, `defp`, `defmacro`, `defmacrop`, `defguard`, `defguardp`, `defdelegate`
; (function), named by their first argument: `name(args)`, `name`, or either before `when`.
;
; A function of several clauses is one definition: its first clause is captured as the
; definition, and a clause right after a clause of the same name as a `@clause`. "First"
; is spelled out by what comes before it, one pattern each: an alternation of previous
; siblings before an anchor drops matches in tree-sitter 0.26, and `#not-any-of?` with
; several values matches everything, hence `#not-match?`.

((call target: (identifier) @_keyword (arguments . (alias) @name))
  @definition.module (#eq? @_keyword "defmodule"))
((call target: (identifier) @_keyword (arguments . (alias) @name))
  @definition.interface (#eq? @_keyword "defprotocol"))
((call target: (identifier) @_keyword
  (arguments . (alias) (keywords (pair key: (keyword) @_for value: (alias) @name))))
  @definition.impl (#eq? @_keyword "defimpl") (#eq? @_for "for: "))
((call target: (identifier) @_keyword (arguments . (alias) @name .))
  @definition.impl (#eq? @_keyword "defimpl"))

; The first statement of a block.
(do_block . (call
  target: (identifier) @_keyword
  (arguments . [
    (call target: (identifier) @name)
    (identifier) @name
    (binary_operator left: [(call target: (identifier) @name) (identifier) @name]
      operator: "when")]))
  @definition.function
  (#match? @_keyword "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate)$"))

; After a module attribute (`@doc`, `@spec`, `@impl`).
(do_block (unary_operator) . (call
  target: (identifier) @_keyword
  (arguments . [
    (call target: (identifier) @name)
    (identifier) @name
    (binary_operator left: [(call target: (identifier) @name) (identifier) @name]
      operator: "when")]))
  @definition.function
  (#match? @_keyword "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate)$"))

; After a comment.
(do_block (comment) . (call
  target: (identifier) @_keyword
  (arguments . [
    (call target: (identifier) @name)
    (identifier) @name
    (binary_operator left: [(call target: (identifier) @name) (identifier) @name]
      operator: "when")]))
  @definition.function
  (#match? @_keyword "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate)$"))

; After a call that defines no function (`use`, `defstruct`, `IO.puts`, `defmodule`).
(do_block (call target: (_) @_other) . (call
  target: (identifier) @_keyword
  (arguments . [
    (call target: (identifier) @name)
    (identifier) @name
    (binary_operator left: [(call target: (identifier) @name) (identifier) @name]
      operator: "when")]))
  @definition.function
  (#not-match? @_other "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate)$")
  (#match? @_keyword "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate)$"))

; After a clause of another function.
(do_block (call
  target: (identifier) @_other
  (arguments . [
    (call target: (identifier) @_previous)
    (identifier) @_previous
    (binary_operator left: [(call target: (identifier) @_previous) (identifier) @_previous]
      operator: "when")]))
  . (call
  target: (identifier) @_keyword
  (arguments . [
    (call target: (identifier) @name)
    (identifier) @name
    (binary_operator left: [(call target: (identifier) @name) (identifier) @name]
      operator: "when")]))
  @definition.function
  (#match? @_other "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate)$")
  (#match? @_keyword "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate)$")
  (#not-eq? @_previous @name))

; A further clause: right after a clause of the same name.
(do_block (call
  target: (identifier) @_other
  (arguments . [
    (call target: (identifier) @_previous)
    (identifier) @_previous
    (binary_operator left: [(call target: (identifier) @_previous) (identifier) @_previous]
      operator: "when")]))
  . (call
  target: (identifier) @_keyword
  (arguments . [
    (call target: (identifier) @name)
    (identifier) @name
    (binary_operator left: [(call target: (identifier) @name) (identifier) @name]
      operator: "when")]))
  @clause
  (#match? @_other "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate)$")
  (#match? @_keyword "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate)$")
  (#eq? @_previous @name))

; A behaviour's callback (`@callback name(args) :: type`, `@macrocallback`, either with
; `when`): the function a module adopting the behaviour must define, as a trait's
; required method is in Rust; its `@doc` above it is its documentation.
((unary_operator operand: (call target: (identifier) @_keyword (arguments . [
    (binary_operator left: (call target: (identifier) @name) operator: "::")
    (binary_operator left: (binary_operator left: (call target: (identifier) @name)
      operator: "::") operator: "when")])))
  @definition.function (#match? @_keyword "^(callback|macrocallback)$"))

; ExUnit's `test "name" do ... end` and `describe "name" do ... end` (with or without a
; context argument), named by their string, as Zig's tests are: a test file's chunks are
; then each test's, and calls inside a test belong to it. `@test`: test code. One named
; as a function could be (`describe "total"`) is left out: calls to `total` would find it.
((call target: (identifier) @_keyword (arguments . (string) @name) (do_block))
  @definition.function @test (#match? @_keyword "^(test|describe)$")
  (#not-match? @name "^\"[A-Za-z_][A-Za-z0-9_]*[!?]?\"$"))
((call target: (identifier) @_keyword (arguments . (string) @name (keywords)))
  @definition.function @test (#match? @_keyword "^(test|describe)$")
  (#not-match? @name "^\"[A-Za-z_][A-Za-z0-9_]*[!?]?\"$"))
