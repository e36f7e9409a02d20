"""Which definition a stored call means, decided at query time (issue #22).

In the issue's order: the binding an import makes; the receiver's type (`self`/`this`
and the enclosing class and its bases, a declared or constructed type, what a called
function is declared to return); the same file; the module a hint names; the files the
caller imports; the only definition of that name in the language; a directory
tie-break — otherwise ambiguous, with the candidates. A call into something outside
the corpus is no edge (`outside.py`). Statuses: `extracted` — settled inside the
caller's file (its own definitions, its class); `resolved` — settled across files
(imports, types, packages, uniqueness); `ambiguous` — several candidates remain.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from semlith.graph.byname import JAVA_LIKE, by_name
from semlith.graph.context import FileContext
from semlith.graph.modules import ModuleMap, family, languages_of
from semlith.graph.outside import PY_BUILTIN_TYPES, PY_BUILTINS, Outside, is_literal, made_outside
from semlith.graph.status import Resolution, Status
from semlith.ingest.graph.records import Call, Import, ImportKind, Local, LocalKind, QualifierKind
from semlith.store.catalog import Catalog
from semlith.store.edges import GraphDef, definitions_named, definitions_of, edges_of

MAX_HOPS = 6  # bases, re-exports and return types followed at most this deep


@dataclass(frozen=True, slots=True)
class _Module:
    files: tuple[int, ...]


_Bound = GraphDef | _Module


class Resolver:
    """Resolves calls of one catalog; caches per file and per name for one answer."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.modules = ModuleMap(catalog)
        self._contexts: dict[int, FileContext] = {}
        self._named: dict[tuple[str, str], list[GraphDef]] = {}
        # by_name's: a name's candidates, a file's tie-break among them, a file's imports
        self.candidates: dict[tuple[str, str, bool, bool], list[GraphDef]] = {}
        self.nearest: dict[tuple[tuple[str, str, bool, bool], int], list[int]] = {}
        self.imported_files: dict[int, set[int]] = {}

    def context(self, file_id: int) -> FileContext:
        if file_id not in self._contexts:
            self.preload([file_id])
        return self._contexts[file_id]

    def preload(self, file_ids: Iterable[int]) -> None:
        """Know these files (with edges): their rows read together, not one by one."""
        wanted = [i for i in dict.fromkeys(file_ids) if i not in self._contexts]
        self.modules.load(wanted)
        edges, defs = edges_of(self.catalog, wanted), definitions_of(self.catalog, wanted)
        for i in wanted:
            self._contexts[i] = FileContext.build(self.modules.file(i), edges[i], defs[i])

    def named(self, name: str, lang: str) -> list[GraphDef]:
        """The definitions `name` in the language family of `lang` (all a caller uses)."""
        key = (name, family(lang))
        if key not in self._named:
            self._named[key] = self.modules.with_edges(
                definitions_named(self.catalog, name, languages_of(lang)))
        return self._named[key]

    def file_id(self, path: str) -> int | None:
        return self.modules.id_at(path)

    def base_of(self, file_id: int, written: str) -> GraphDef | None:
        """The class a base as written in file `file_id` names, if it is in the corpus."""
        return self._type(self.context(file_id), written, 0)

    def imported(self, file_id: int, local: str) -> GraphDef | None:
        """The definition an import of file `file_id` binds to the name `local`."""
        try:
            bound = self._binding(self.context(file_id), local, 0)
        except Outside:
            return None
        return bound if isinstance(bound, GraphDef) else None

    # -- a call ------------------------------------------------------------------------

    def resolve(self, file_id: int, call: Call) -> Resolution | None:
        """The definition(s) `call` in file `file_id` means; None when not in the corpus."""
        ctx = self.context(file_id)
        try:
            found = self._specific(ctx, call)
        except Outside:
            return None
        if found is not None:
            status = Status.EXTRACTED if found.file_id == file_id else Status.RESOLVED
            return Resolution(status, (found,))
        return by_name(self, ctx, call)

    def _specific(self, ctx: FileContext, call: Call) -> GraphDef | None:
        q = call.qualifier_kind
        if q is QualifierKind.NONE:
            return self._bare(ctx, call)
        if q is QualifierKind.SELF:
            owner = ctx.enclosing_type(call.caller)
            if call.receiver in ("Self", "static", "self::") and not owner:
                return None
            return self._member_of(ctx, owner, call.name) if owner else ctx.this_member(call)
        if q is QualifierKind.SUPER:
            owner = ctx.enclosing_type(call.caller)
            if not owner:
                return None
            for base in ctx.bases.get(owner, []):
                typ = self._type(ctx, base, 0)
                if typ is not None:
                    if call.name in ("super", "base", "parent"):
                        return typ
                    found = self._member(typ, call.name, 0)
                    if found is not None:
                        return found
            raise Outside  # every base outside the corpus, or no such method in them
        if q is QualifierKind.MEMBER:
            return self._on_member(ctx, call)
        if q in (QualifierKind.NAME, QualifierKind.MODULE_PATH):
            return self._on_name(ctx, call)
        if q is QualifierKind.OTHER and is_literal(call.receiver, ctx.file.lang):
            raise Outside
        return None

    def _bare(self, ctx: FileContext, call: Call) -> GraphDef | None:
        name, lang = call.name, ctx.file.lang
        scope = call.caller  # nested definitions, innermost first
        while scope and scope != "<module>":
            inner = ctx.by_qualname.get(f"{scope}.{name}")
            if (inner and ctx.owner.get(inner[0].qualname) is None) or \
                    (inner and ctx.type_named(scope) is None):
                return inner[0]
            scope = ctx.parent_scope(scope)
        if lang in JAVA_LIKE or lang == "ruby":  # a bare call is a call on `this`
            owner = ctx.enclosing_type(call.caller)
            found = self._member_of(ctx, owner, name) if owner else None
            if found is not None:
                return found
        top = ctx.top(name)
        if top is not None:
            return top
        bound = self._binding(ctx, name, 0)
        if isinstance(bound, GraphDef):
            return bound
        if isinstance(bound, _Module):
            return None
        if family(lang) in ("go", "java"):  # the same package: the files beside it
            for other in self.modules.same_directory(ctx.file.id):
                if other != ctx.file.id:
                    found = self.context(other).top(name)
                    if found is not None:
                        return found
        for imp in ctx.wildcards:
            found = self._export(self.modules.resolve(ctx.file.id, imp.module), name, 0)
            if found is not None:
                return found
        if lang == "python" and name in PY_BUILTINS:
            raise Outside
        if lang in ("python", "go"):  # a name neither defined nor imported: not ours
            raise Outside
        return None

    def _on_member(self, ctx: FileContext, call: Call) -> GraphDef | None:
        """`self.store.put()`: the type of the enclosing class's field `store`."""
        owner = ctx.enclosing_type(call.caller)
        field = call.receiver.split(".", 1)[1] if "." in call.receiver else ""
        if not owner or not field or "." in field:
            return None
        typ = self._field_type(ctx, owner, field, 0)
        local = ctx.field_type(owner, field)
        if typ is None and local is not None and self._foreign(ctx, local):
            raise Outside
        return self._member(typ, call.name, 0) if typ is not None else None

    def _field_type(self, ctx: FileContext, owner: str, field: str, depth: int
                    ) -> GraphDef | None:
        local = ctx.field_type(owner, field)
        if local is not None:
            return self._local_type(ctx, local.type_name, local.kind, 0)
        if depth < MAX_HOPS:  # a field a base class sets
            for base in ctx.bases.get(owner, []):
                typ = self._type(ctx, base, depth + 1)
                if typ is not None:
                    found = self._field_type(self.context(typ.file_id), typ.qualname, field,
                                             depth + 1)
                    if found is not None:
                        return found
        return None

    def _on_name(self, ctx: FileContext, call: Call) -> GraphDef | None:
        """`x.send()`, `shop.total()`, `Cart.create()`, `a.b.c()`."""
        receiver = call.receiver.replace("::", ".").replace("->", ".")
        head = receiver.split(".")[0]
        local = ctx.local_type(call.caller, head) if head == receiver else None
        if local is not None:
            typ = self._local_type(ctx, local.type_name, local.kind, 0)
            if typ is None and self._foreign(ctx, local):
                raise Outside  # a declared type the corpus does not define (`List<T>`)
            return self._member(typ, call.name, 0) if typ is not None else None
        if head == receiver and (found := ctx.named_object_member(head, call.name)):
            return found  # `app.set()` beside `app.set = function`
        bound = self._value(ctx, receiver, 0)
        if isinstance(bound, _Module):
            found = self._export(list(bound.files), call.name, 0)
            if found is None and not any(self.context(f).has_object_member(call.name)
                                         for f in bound.files):
                raise Outside  # else `proto.init()`, proto an `app` whose `app.init = ...`
            return found
        if bound is not None:
            member = self._member(bound, call.name, 0)
            if member is not None:
                return member
        elif head == receiver and receiver[:1].isupper() and \
                not self.named(receiver, ctx.file.lang):
            raise Outside  # `String.format`, `Math.max`: a type the corpus does not define
        elif head == receiver and ctx.file.lang == "python" and receiver in PY_BUILTIN_TYPES:
            raise Outside  # `object.__repr__(self)`, `dict.fromkeys(...)`
        return None

    def _foreign(self, ctx: FileContext, local: Local) -> bool:
        return made_outside(local, ctx.file.lang, lambda name: self._value(ctx, name, 0))

    # -- names, types, members -----------------------------------------------------------

    def _value(self, ctx: FileContext, dotted: str, depth: int) -> _Bound | None:
        """What a (dotted) name written in the file is: a definition or a module."""
        parts = dotted.split(".")
        bound: _Bound | None = ctx.top(parts[0])
        if bound is None:
            bound = self._binding(ctx, parts[0], depth)
        if bound is None and family(ctx.file.lang) in ("go", "java"):
            for other in self.modules.same_directory(ctx.file.id):
                if other != ctx.file.id:
                    bound = self.context(other).type_named(parts[0]) or \
                        self.context(other).top(parts[0])
                    if bound is not None:
                        break
        for imp in ctx.wildcards if bound is None else ():
            bound = self._export(self.modules.resolve(ctx.file.id, imp.module), parts[0], depth)
            if bound is not None:
                break
        if bound is None and ctx.file.lang == "rust" and len(parts) > 1:
            files = self.modules.resolve(ctx.file.id, parts[0])
            bound = _Module(tuple(files)) if files else None
        if bound is None and ctx.file.lang == "python" and len(parts) > 1:
            files = self.modules.resolve(ctx.file.id, ".".join(parts[:-1]))
            bound = _Module(tuple(files)) if files else None
            parts = parts[-1:]
        for part in parts[1:]:
            if bound is None:
                return None
            if isinstance(bound, _Module):
                bound = self._export_or_module(bound, part, depth)
            else:
                bound = self._member(bound, part, depth)
        return bound

    def _binding(self, ctx: FileContext, name: str, depth: int) -> _Bound | None:
        """What the file's import binding `name` refers to; Outside for a module
        outside the corpus; None when the file binds no such name."""
        imp = ctx.bindings.get(name)
        if imp is None:
            return None
        files = self.modules.resolve(ctx.file.id, imp.module)
        if not files:
            if ctx.file.lang == "python" and imp.name and not imp.module.startswith("."):
                sub = self.modules.resolve(ctx.file.id, f"{imp.module}.{imp.name}")
                if sub:
                    return _Module(tuple(sub))
            raise Outside
        return self._imported(ctx, imp, files, depth)

    def _imported(self, ctx: FileContext, imp: Import, files: list[int], depth: int
                  ) -> _Bound | None:
        if imp.kind is ImportKind.MODULE or not imp.name or imp.name == "*":
            return _Module(tuple(files))
        if imp.kind is ImportKind.DEFAULT:
            return self._default(files, imp.alias)
        found = self._export_or_module(_Module(tuple(files)), imp.name, depth)
        if found is None and imp.kind is ImportKind.STATIC:  # `import static a.B.m`
            owner = imp.module.rsplit(".", 1)[-1]
            for file_id in files:
                typ = self.context(file_id).type_named(owner)
                if typ is not None:
                    return self._member(typ, imp.name, depth)
        if found is None and ctx.file.lang == "python":
            sub = self.modules.resolve(ctx.file.id, f"{imp.module}.{imp.name}")
            return _Module(tuple(sub)) if sub else None
        return found

    def _export_or_module(self, module: _Module, name: str, depth: int) -> _Bound | None:
        found = self._export(list(module.files), name, depth)
        if found is not None:
            return found
        for file_id in module.files:  # `pkg.sub` where pkg's __init__ does not bind sub
            f = self.modules.file(file_id)
            if f.lang == "python" and f.path.endswith("__init__.py"):
                sub = self.modules.resolve(file_id, f".{name}")
                if sub:
                    return _Module(tuple(sub))
        return None

    def _export(self, files: list[int], name: str, depth: int) -> GraphDef | None:
        """The definition `name` that these files (a module) offer: their own, or one
        they import and so re-export (`__init__.py`, a barrel, `pub use`)."""
        for file_id in files:
            ctx = self.context(file_id)
            top = ctx.top(name)
            if top is not None:
                return top
        if depth >= MAX_HOPS:
            return None
        for file_id in files:
            ctx = self.context(file_id)
            try:
                bound = self._binding(ctx, name, depth + 1)
            except Outside:
                continue
            if isinstance(bound, GraphDef):
                return bound
            for imp in ctx.wildcards:
                found = self._export(self.modules.resolve(file_id, imp.module), name, depth + 1)
                if found is not None:
                    return found
        return None

    def _default(self, files: list[int], local: str) -> GraphDef | None:
        """A JS default import (`FileContext.default_export`) from the first file with one."""
        return next(filter(None, (self.context(f).default_export(local) for f in files)), None)

    def _type(self, ctx: FileContext, written: str, depth: int) -> GraphDef | None:
        """The class-like definition a type as written in the file names."""
        text = written.split("<")[0].split("[")[0].strip().lstrip("*&").replace("::", ".")
        if not text or depth > MAX_HOPS:
            return None
        try:
            bound = self._value(ctx, text, depth)
        except Outside:
            return None
        if isinstance(bound, GraphDef):
            return bound
        if bound is None and "." not in text:
            candidates = [d for d in self.named(text, ctx.file.lang) if d.qualname == d.name
                          and self.context(d.file_id).type_named(d.qualname)]
            if len(candidates) == 1:
                return candidates[0]
        return None

    def _local_type(self, ctx: FileContext, type_name: str, kind: LocalKind, depth: int
                    ) -> GraphDef | None:
        """The type a local has: as declared/constructed, or what its call returns."""
        if kind is not LocalKind.CALL:
            return self._type(ctx, type_name, depth)
        text = type_name.replace("::", ".")
        try:
            made = self._value(ctx, text, depth)
        except Outside:
            return None
        if not isinstance(made, GraphDef):
            return None
        callee_ctx = self.context(made.file_id)
        if callee_ctx.type_named(made.qualname) is not None:
            return made  # a constructor call
        returned = callee_ctx.returns.get(made.qualname)
        if not returned or depth >= MAX_HOPS:
            return None
        if returned == "Self":
            owner = callee_ctx.enclosing_type(made.qualname)
            return callee_ctx.type_named(owner) if owner else None
        return self._type(callee_ctx, returned, depth + 1)

    def _member_of(self, ctx: FileContext, owner: str, name: str) -> GraphDef | None:
        typ = ctx.type_named(owner)
        return self._member(typ, name, 0) if typ is not None else None

    def _member(self, typ: GraphDef, name: str, depth: int) -> GraphDef | None:
        """Method (or nested definition) `name` of a type, through its bases."""
        ctx = self.context(typ.file_id)
        found = ctx.members.get(typ.qualname, {}).get(name)
        if found is not None:
            return found
        if depth >= MAX_HOPS:
            return None
        for base in ctx.bases.get(typ.qualname, []):
            base_def = self._type(ctx, base, depth + 1)
            if base_def is not None and base_def != typ:
                found = self._member(base_def, name, depth + 1)
                if found is not None:
                    return found
        return None
