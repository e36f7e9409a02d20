"""The records a file's code graph is made of: values only, no parsing here.

Everything is recorded as written in the file (names, receiver text, module strings);
what a name refers to is decided at query time by the resolver, so an edit to another
file never leaves a stored edge pointing at the wrong place.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

MODULE = "<module>"  # the caller, scope or parent of what is at a file's top level


class QualifierKind(StrEnum):
    """What stands before a call's name: how the resolver should look the callee up."""

    NONE = "none"  # `send()`: a local, the file, an import, the language
    SELF = "self"  # `self.send()`, `this.send()`, `Self::new()`, a Go method's receiver
    SUPER = "super"  # `super().send()`, `super.send()`, C# `base.`, PHP `parent::`
    MEMBER = "member"  # `self.session.send()`: a field of the enclosing class's instance
    NAME = "name"  # `session.send()`, `Foo.create()`: a local, an import, a class
    MODULE_PATH = "module_path"  # `requests.adapters.send()`, `std::fs::read()`
    CALL = "call"  # `get_session().send()`: the type a call returns
    OTHER = "other"  # subscripts, literals, parenthesised expressions


class ImportKind(StrEnum):
    """What binding an import makes in the importing file."""

    MODULE = "module"  # `import a.b as c`, Go imports, `import * as ns`, `x = require(..)`
    NAME = "name"  # `from m import x`, `import {x} from`, `use a::x`, `import a.B;`
    DEFAULT = "default"  # JS/TS `import x from './m'`
    REEXPORT = "reexport"  # `export {x} from`, `export * from`, Rust `pub use`
    STATIC = "static"  # Java `import static a.B.m`
    SIDE_EFFECT = "side_effect"  # `import './polyfill'`, Go `import _ "x"`: binds nothing


class InheritKind(StrEnum):
    EXTENDS = "extends"  # a base class (Python bases, `extends`, Ruby `<`, C++ bases)
    IMPLEMENTS = "implements"  # an interface (Java, TS, PHP)
    IMPL = "impl"  # Rust `impl Trait for Type`
    EMBED = "embed"  # Go embedded struct fields and interfaces
    MIXIN = "mixin"  # Ruby `include`, Scala `with`


class LocalKind(StrEnum):
    """How a binding's type was seen."""

    DECLARED = "declared"  # `x: Foo`, `Foo x`, `var x Foo`, `let x: Foo`, `def f(x: Foo)`
    CONSTRUCTED = "constructed"  # `new Foo()`, Go `Foo{}`, Rust `Foo { .. }`
    CALL = "call"  # `x = Foo()`, `x := NewFoo()`, `Foo::new()`: type_name is the callee
    RETURNS = "returns"  # a function's declared return type: name is the function's name,
    # scope its qualname (what a CALL local's callee gives back)
    ALIAS = "alias"  # `x = f`, `x = mod.f`: type_name is the name bound to x
    LITERAL = "literal"  # `x = []`, `x = {}`, `x = "..."`: type_name is the literal's kind


@dataclass(frozen=True, slots=True)
class Call:
    line: int  # 1-based, of the callee's name (in a chain split over lines, its own line)
    column: int  # 0-based, in bytes, of the call expression
    name: str  # the callee's simple name: `send`
    receiver: str  # the text before it (`self`, `requests.adapters`), bounded; "" for none
    qualifier_kind: QualifierKind
    caller: str  # qualname of the innermost enclosing definition, or MODULE


@dataclass(frozen=True, slots=True)
class Import:
    line: int
    module: str  # as written: `..x` keeps its relative level, `./m`, `net/http`, `a::b`
    name: str  # the imported name, "*" for a wildcard, "" when the module itself is bound
    alias: str  # the local name when renamed (`as c`, Go's `f "fmt"`), else ""
    kind: ImportKind


@dataclass(frozen=True, slots=True)
class Inherit:
    line: int
    child: str  # the class (or Rust impl / Go type) qualname
    parent: str  # the base as written, without type arguments: `Base`, `mod.Base`
    kind: InheritKind


@dataclass(frozen=True, slots=True)
class Contain:
    parent: str  # a qualname, or MODULE
    child: str
    kind: str  # the child's definition kind: function, method, class, struct...
    line: int = 0  # the child's own first line (`def`, not a decorator or comment)


@dataclass(frozen=True, slots=True)
class Local:
    line: int
    name: str  # the variable, parameter or field name (`s`, not `self.s`)
    type_name: str  # the type (or, for LocalKind.CALL, the callee) as written, bounded
    kind: LocalKind
    scope: str  # the enclosing definition's qualname (a field's: its class), or MODULE
    field: bool = False  # a field of `scope`'s instances (`self.x = ...`, TS/Java fields)


@dataclass(frozen=True, slots=True)
class FileEdges:
    """The edges of one file; `failed` says why there are none (a parse that failed or
    ran out of time, no edge query for the language)."""

    calls: tuple[Call, ...] = ()
    imports: tuple[Import, ...] = ()
    inherits: tuple[Inherit, ...] = ()
    contains: tuple[Contain, ...] = ()
    locals: tuple[Local, ...] = ()
    package: str = ""  # the package or namespace the file declares (Java, Go, Kotlin...)
    failed: str = ""
    truncated: bool = False  # MAX_EDGES reached: the rest of the file's edges were dropped
