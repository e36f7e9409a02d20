; Rust: functions (methods inside impl/trait), types, traits, impls, modules, constants.
(function_item name: (identifier) @name) @definition.function
; A trait's required method, or a function of an `extern` block.
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.interface
; An impl is named by its type: `impl Foo`, `impl<T> Trait for Foo<T>`, `impl X for a::Foo`.
(impl_item type: (type_identifier) @name) @definition.impl
(impl_item type: (generic_type type: (type_identifier) @name)) @definition.impl
(impl_item type: (scoped_type_identifier name: (type_identifier) @name)) @definition.impl
(impl_item
  type: (generic_type type: (scoped_type_identifier name: (type_identifier) @name)))
  @definition.impl
; `mod name;` only declares a file; a module with a body is a definition.
(mod_item name: (identifier) @name body: (declaration_list)) @definition.module
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(type_item name: (type_identifier) @name) @definition.type
(macro_definition name: (identifier) @name) @definition.function
; A type an item macro defines (`bitflags! { pub struct Flags: u32 {...} }`, axum's
; `define_rejection! { pub struct JsonDataError(Error); }`): named by its first `struct`
; or `enum`. Only at item level: `quote! { struct #name }` in a function body generates
; code, it defines nothing here.
([(source_file (macro_invocation (token_tree "struct" . (identifier) @name)) @definition.struct)
  (declaration_list (macro_invocation (token_tree "struct" . (identifier) @name))
    @definition.struct)])
([(source_file (macro_invocation (token_tree "enum" . (identifier) @name)) @definition.enum)
  (declaration_list (macro_invocation (token_tree "enum" . (identifier) @name))
    @definition.enum)])
; Test code beside the code it tests: an item marked `#[test]` (`#[tokio::test]`, any
; `path::test`) or `#[cfg(test)]` is a test, and so is everything inside it (`@test`
; marks the attribute; the definition it is attached to takes the mark).
((attribute_item (attribute (identifier) @_name)) @test (#eq? @_name "test"))
((attribute_item (attribute (scoped_identifier name: (identifier) @_name))) @test
  (#eq? @_name "test"))
((attribute_item (attribute (identifier) @_cfg arguments: (token_tree . (identifier) @_arg .)))
  @test (#eq? @_cfg "cfg") (#eq? @_arg "test"))
; `#![cfg(test)]` inside a module makes it a test module, and at the top of a file (a
; `tests.rs` under any name) the whole file: `@test.file` marks every definition in it.
((mod_item body: (declaration_list (inner_attribute_item (attribute (identifier) @_cfg
    arguments: (token_tree . (identifier) @_arg .))))) @test
  (#eq? @_cfg "cfg") (#eq? @_arg "test"))
((source_file (inner_attribute_item (attribute (identifier) @_cfg
    arguments: (token_tree . (identifier) @_arg .)))) @test.file
  (#eq? @_cfg "cfg") (#eq? @_arg "test"))
