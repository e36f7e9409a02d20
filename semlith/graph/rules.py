"""What resolution does differently per language: one row per language (issue #44).

Adding a language to the graph is adding a row (and its edge query in
`grammars/edges/`); the resolver, the module map and the by-name step read these
fields and never compare a language's name. A language without a row gets `DEFAULT`:
resolution by imports it cannot read, the same file, and names alone.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

PY_BUILTINS = frozenset(dir(builtins))
# Builtin classes as receivers (`object.__repr__(self)`, `dict.fromkeys`): never the
# corpus's, unless the file binds the name itself.
PY_BUILTIN_TYPES = frozenset(n for n in PY_BUILTINS if isinstance(getattr(builtins, n), type)
                             and n[:1].islower()) - {"type", "property", "super"}


@dataclass(frozen=True, slots=True)
class Rules:
    """One language's resolution rules; every field's default is "no such rule"."""

    family: str  # languages whose files import each other share one (JS, TS, TSX: js)
    modules: str = ""  # how an import names files: ModuleMap's resolver of that name
    extensions: tuple[str, ...] = ()  # source files a class-named import may be (Java)
    package_file: str = ""  # the file that is its folder's module (`__init__.py`)
    module_binding: str = ""  # what `import a.b` binds: first, last (Go), or "" (`::` last)
    package_is_directory: bool = False  # the files beside a file share its names (Go)
    bare_call_on_self: bool = False  # `m()` in a method may be `this.m()` (Java, Ruby)
    bare_call_may_be_method: bool = False  # by name, a bare `m()` may mean a method
    unbound_is_outside: bool = False  # a bare name neither defined nor imported: not ours
    builtins: frozenset[str] = frozenset()  # names every file has without an import
    builtin_types: frozenset[str] = frozenset()  # classes every file has (as receivers)
    dotted_modules: str = ""  # `a.b.c` written in code: "prefix" a.b may be a module
    # (Python), "head" a may be one (Rust)
    submodule_imports: bool = False  # `from pkg import mod` may bind a module
    literal_receivers: bool = False  # `"".join()`, `[].map()`: a literal's own methods
    foreign_classes: bool = False  # a capitalised call imported from outside makes an
    # object from outside (`ContextVar(...)`)
    # What a call of a class runs (`Route(...)`, `new X()`): the member of this name,
    # its own or (`inherited`) a base's; `class_named`: the member named as the class
    constructor: str = ""
    constructor_class_named: bool = False
    constructor_inherited: bool = False
    instantiate: str = ""  # `X.new(...)` is a call of the class X (Ruby)


def _java_like(lang: str, modules: str = "", extensions: tuple[str, ...] = (),
               package_is_directory: bool = False, class_named: bool = False,
               constructor: str = "") -> Rules:
    """A language whose methods call their class's others by bare name."""
    return Rules(lang, modules=modules, extensions=extensions,
                 package_is_directory=package_is_directory, bare_call_on_self=True,
                 bare_call_may_be_method=True, constructor=constructor,
                 constructor_class_named=class_named,
                 constructor_inherited=bool(constructor))


_TABLE: dict[str, Rules] = {
    "python": Rules("python", modules="python", package_file="__init__.py",
                    module_binding="first", unbound_is_outside=True, builtins=PY_BUILTINS,
                    builtin_types=PY_BUILTIN_TYPES, dotted_modules="prefix",
                    submodule_imports=True, literal_receivers=True, foreign_classes=True,
                    constructor="__init__", constructor_inherited=True),
    **{lang: Rules("js", modules="js", literal_receivers=True, constructor="constructor",
                   constructor_inherited=True)
       for lang in ("javascript", "typescript", "tsx")},
    "go": Rules("go", modules="go", module_binding="last", package_is_directory=True,
                unbound_is_outside=True),
    "java": _java_like("java", "java", (".java",), package_is_directory=True,
                       class_named=True),
    "kotlin": _java_like("kotlin", "java", (".kt", ".kts")),
    "scala": _java_like("scala", "java", (".scala",)),
    "rust": Rules("rust", modules="rust", dotted_modules="head"),
    "ruby": Rules("ruby", bare_call_on_self=True, constructor="initialize",
                  constructor_inherited=True, instantiate="new"),
    "csharp": _java_like("csharp", class_named=True),
    "cpp": _java_like("cpp", class_named=True),
    "php": _java_like("php", constructor="__construct"),
    "swift": _java_like("swift", constructor="init"),
}


def rules(lang: str) -> Rules:
    """The rules of `lang` (a language with no row: only what every language has)."""
    found = _TABLE.get(lang)
    return found if found is not None else Rules(lang)


def family(lang: str) -> str:
    """Languages whose files import each other (JS, TS and TSX are one)."""
    return rules(lang).family


def languages_of(lang: str) -> tuple[str, ...]:
    """Every language of `lang`'s family (`typescript` -> javascript, typescript, tsx)."""
    mine = family(lang)
    return tuple(k for k, v in _TABLE.items() if v.family == mine) or (lang,)
