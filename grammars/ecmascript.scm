; What JavaScript, TypeScript and TSX share: javascript.scm and typescript.scm include
; this file (an include line, expanded by queries.query_text).
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(lexical_declaration
  (variable_declarator name: (identifier) @name value: (class))) @definition.class
; At top level, a function handed to a call whose result is bound to a name is that name's
; definition: `export const Button = forwardRef((props, ref) => {})`, `const useBear =
; create()((set) => ({}))`, `const save = debounce(function () {}, 100)`.
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: (call_expression
        arguments: (arguments [(arrow_function) (function_expression)])))) @definition.function)
(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: (call_expression
          arguments: (arguments [(arrow_function) (function_expression)])))) @definition.function))
(variable_declaration
  (variable_declarator name: (identifier) @name value: (class))) @definition.class
; Functions assigned to members at top level (inside a function such an assignment is a
; callback being installed, not a definition). `exports.f = function () {}` and
; `module.exports.f = ...` are functions of the module; `proto.handle = function handle()
; {}` and `Foo.prototype.bar = () => {}` are methods of their object, which qualifies them
; (`proto.handle`, `Foo.bar`); a chained `req.get = req.header = function () {}` is named by
; its first member.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: [(identifier) (member_expression)] @_object
        property: (property_identifier) @name)
      right: [(arrow_function) (function_expression) (generator_function)
              (assignment_expression right: [(arrow_function) (function_expression) (generator_function)])])
    (#match? @_object "^(module\\.)?exports$")) @definition.function)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: [(identifier) (member_expression)] @qualifier
        property: (property_identifier) @name)
      right: [(arrow_function) (function_expression) (generator_function)
              (assignment_expression right: [(arrow_function) (function_expression) (generator_function)])])
    (#not-match? @qualifier "^(module\\.)?exports$")
    (#not-eq? @qualifier "module")) @definition.method)
; `Foo.prototype.bar = function () {}` anywhere (in a module wrapper, say): always a method.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression property: (property_identifier) @_prototype) @qualifier
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])
  (#eq? @_prototype "prototype")) @definition.method
; `module.exports = function createApplication() {}` is that function; an anonymous one is
; named `exports`.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
      right: (function_expression name: (identifier) @name))
    (#eq? @_module "module") (#eq? @_exports "exports")) @definition.function)
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (identifier) @_module property: (property_identifier) @name)
      right: [(arrow_function) (function_expression !name) (generator_function !name)])
    (#eq? @_module "module") (#eq? @name "exports")) @definition.function)
; A named function expression passed to a call at top level: `defineGetter(req, 'ip',
; function ip() {})`, `app.get("/", function home(req, res) {})`.
(program
  (expression_statement
    (call_expression
      arguments: (arguments (function_expression name: (identifier) @name)))) @definition.function)
; A test framework's blocks (`describe("router", () => {})`, `it('matches', function () {})`,
; `test.only(...)`: Jest, Vitest, Mocha, node:test, AVA), named by their string, as Zig's
; and ExUnit's tests are; `@test`: test code. The function need not follow the name: AVA
; passes macros between them (`test('reads', withServer, async t => {})`), Jest a timeout
; after it. One named as a function could be (`describe("parse", ...)`) is left out:
; calls to `parse` would find it.
((expression_statement (call_expression
    function: [(identifier) @_fn (member_expression object: (identifier) @_fn)]
    arguments: (arguments . [(string) (template_string)] @name
                 [(arrow_function) (function_expression)])))
  @definition.function @test
  (#match? @_fn "^(describe|it|test|suite|context)$")
  (#not-match? @name "^.[A-Za-z_$][A-Za-z0-9_$]*.$"))
