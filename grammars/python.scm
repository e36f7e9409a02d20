; Python: classes and functions (methods are functions inside a class), and the names a
; module binds by assignment at its top level (`g: _AppCtxGlobalsProxy = LocalProxy(...)`,
; `MAX_RETRIES = 3`, `log = logging.getLogger(__name__)`): the proxies, constants and
; singletons other modules import. Only a single name directly in the module counts (not
; `a, b = ...`, not inside `if`/`try`, not a function's locals); `a = b = 1` binds `a`.
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(module (assignment left: (identifier) @name (#not-eq? @name "_")) @definition.variable)
