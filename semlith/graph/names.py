"""What a name written in a file means (issue #22): the definition or the module an
import binds, a (dotted) name, a type as written, a member through bases, what a call
returns. The ground the call resolver (`resolve.py`) stands on; it caches per file
and per name for its life."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from semlith.graph.context import FileContext
from semlith.graph.modules import ModuleMap, family, languages_of
from semlith.graph.outside import Outside
from semlith.graph.rules import rules
from semlith.ingest.definitions import binds_value
from semlith.ingest.graph.records import Import, ImportKind, LocalKind
from semlith.store.graph import GraphDef, GraphStore

MAX_HOPS = 6  # bases, re-exports and return types followed at most this deep
CONSTRUCTED = frozenset({"class", "struct", "record"})  # kinds a call may construct


@dataclass(frozen=True, slots=True)
class Module:
    """The files a module name stands for; a Python namespace package (a folder
    without `__init__.py`) has none, and its `name` as the file `via` wrote it."""

    files: tuple[int, ...]
    name: str = ""
    via: int = -1


Bound = GraphDef | Module


class Names:
    """Names of one store's graph, with the files and definitions it has read."""

    def __init__(self, graph: GraphStore) -> None:
        self.graph = graph
        self.modules = ModuleMap(graph)
        self._contexts: dict[int, FileContext] = {}
        self._named: dict[tuple[str, str], list[GraphDef]] = {}
        self._unread: dict[tuple[str, ...], int] = {}

    def context(self, file_id: int) -> FileContext:
        if file_id not in self._contexts:
            self.preload([file_id])
        return self._contexts[file_id]

    def preload(self, file_ids: Iterable[int]) -> None:
        """Know these files (with edges): their rows read together, not one by one."""
        wanted = [i for i in dict.fromkeys(file_ids) if i not in self._contexts]
        self.modules.load(wanted)
        edges, defs = self.graph.edges_of(wanted), self.graph.definitions_of(wanted)
        for i in wanted:
            self._contexts[i] = FileContext.build(self.modules.file(i), edges[i],
                                                  _targets(defs[i]))

    def named(self, name: str, lang: str) -> list[GraphDef]:
        """The definitions `name` in the language family of `lang` (all a caller uses)."""
        key = (name, family(lang))
        if key not in self._named:
            self._named[key] = self.modules.with_edges(
                _targets(self.graph.definitions_named(name, languages_of(lang))))
        return self._named[key]

    def unread_files(self, langs: tuple[str, ...]) -> int:
        """Files of `langs` whose edges could not be read (the same for every question
        while the store's generation stands)."""
        if langs not in self._unread:
            self._unread[langs] = self.graph.unread_files(langs)
        return self._unread[langs]

    def file_id(self, path: str) -> int | None:
        return self.modules.id_at(path)

    def base_of(self, file_id: int, written: str) -> GraphDef | None:
        """The class a base as written in file `file_id` names, if it is in the corpus."""
        return self.type_of(self.context(file_id), written, 0)

    def imported(self, file_id: int, local: str) -> GraphDef | None:
        """The definition an import of file `file_id` binds to the name `local`."""
        try:
            bound = self.binding(self.context(file_id), local, 0)
        except Outside:
            return None
        return bound if isinstance(bound, GraphDef) else None

    def beside(self, ctx: FileContext, name: str,
                look: Callable[[FileContext, str], GraphDef | None]) -> GraphDef | None:
        """`name` in the files beside this one, where a package is a folder (Go's)."""
        if not rules(ctx.file.lang).package_is_directory:
            return None
        for other in self.modules.same_directory(ctx.file.id):
            if other != ctx.file.id:
                found = look(self.context(other), name)
                if found is not None:
                    return found
        return None
    # -- names, types, members -----------------------------------------------------------

    def value(self, ctx: FileContext, dotted: str, depth: int) -> Bound | None:
        """What a (dotted) name written in the file is: a definition or a module."""
        parts = dotted.split(".")
        bound: Bound | None = ctx.top(parts[0])
        if bound is None:
            bound = self.binding(ctx, parts[0], depth)
        if bound is None:
            bound = self.beside(ctx, parts[0], _type_or_top)
        for imp in ctx.wildcards if bound is None else ():
            bound = self.export(self.modules.resolve(ctx.file.id, imp.module), parts[0], depth)
            if bound is not None:
                break
        if bound is None and len(parts) > 1:
            bound, parts = self._dotted_module(ctx, parts)
        for part in parts[1:]:
            if bound is None:
                return None
            if isinstance(bound, Module):
                bound = self._export_or_module(bound, part, depth)
            else:
                bound = self.member(bound, part, depth)
        return bound

    def _dotted_module(self, ctx: FileContext, parts: list[str]
                       ) -> tuple[Bound | None, list[str]]:
        """`a.b.c` whose head is no name of the file: a module path as the language
        writes one (Rust's `a::b`, Python's `a.b` of `a.b.c`), and the parts left."""
        how = rules(ctx.file.lang).dotted_modules
        if how == "head":
            files = self.modules.resolve(ctx.file.id, parts[0])
            return (Module(tuple(files)) if files else None), parts
        if how == "prefix":
            files = self.modules.resolve(ctx.file.id, ".".join(parts[:-1]))
            return (Module(tuple(files)) if files else None), parts[-1:]
        return None, parts

    def binding(self, ctx: FileContext, name: str, depth: int) -> Bound | None:
        """What the file's import binding `name` refers to; Outside for a module
        outside the corpus; None when the file binds no such name."""
        imp = ctx.bindings.get(name)
        if imp is None:
            return None
        if imp.kind is ImportKind.MODULE and not imp.alias and \
                rules(ctx.file.lang).module_binding == "first" and imp.module != name:
            imp = replace(imp, module=name)  # `import a.b.c` binds `a`, the package
        files = self.modules.resolve(ctx.file.id, imp.module)
        if not files:
            if rules(ctx.file.lang).submodule_imports and imp.name and \
                    not imp.module.startswith("."):
                sub = self.modules.resolve(ctx.file.id, f"{imp.module}.{imp.name}")
                if sub:
                    return Module(tuple(sub))
            if not imp.name and self.modules.is_namespace(ctx.file.id, imp.module):
                return Module((), imp.module, ctx.file.id)  # `import ns.sub` of a folder
            raise Outside
        return self._imported(ctx, imp, files, depth)

    def _imported(self, ctx: FileContext, imp: Import, files: list[int], depth: int
                  ) -> Bound | None:
        if imp.kind is ImportKind.MODULE or not imp.name or imp.name == "*":
            return Module(tuple(files))
        if imp.kind is ImportKind.DEFAULT:
            return self._default(files, imp.alias)
        found = self._export_or_module(Module(tuple(files)), imp.name, depth)
        if found is None and imp.kind is ImportKind.STATIC:  # `import static a.B.m`
            owner = imp.module.rsplit(".", 1)[-1]
            for file_id in files:
                typ = self.context(file_id).type_named(owner)
                if typ is not None:
                    return self.member(typ, imp.name, depth)
        if found is None and rules(ctx.file.lang).submodule_imports:
            sub = self.modules.resolve(ctx.file.id, f"{imp.module}.{imp.name}")
            return Module(tuple(sub)) if sub else None
        return found

    def _export_or_module(self, module: Module, name: str, depth: int) -> Bound | None:
        found = self.export(list(module.files), name, depth)
        if found is not None:
            return found
        for file_id in module.files:  # `pkg.sub` where pkg's __init__ does not bind sub
            f = self.modules.file(file_id)
            package_file = rules(f.lang).package_file
            if package_file and f.path.endswith(package_file):
                sub = self.modules.resolve(file_id, f".{name}")
                if sub:
                    return Module(tuple(sub))
        if module.name:  # a namespace package's module, or one below it
            dotted = f"{module.name}.{name}"
            sub = self.modules.resolve(module.via, dotted)
            if sub or self.modules.is_namespace(module.via, dotted):
                return Module(tuple(sub), dotted, module.via)
        return None

    def export(self, files: list[int], name: str, depth: int) -> GraphDef | None:
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
                bound = self.binding(ctx, name, depth + 1)
            except Outside:
                continue
            if isinstance(bound, GraphDef):
                return bound
            for imp in ctx.wildcards:
                found = self.export(self.modules.resolve(file_id, imp.module), name, depth + 1)
                if found is not None:
                    return found
        return None

    def _default(self, files: list[int], local: str) -> GraphDef | None:
        """A JS default import (`FileContext.default_export`) from the first file with one."""
        return next(filter(None, (self.context(f).default_export(local) for f in files)), None)

    def type_of(self, ctx: FileContext, written: str, depth: int) -> GraphDef | None:
        """The class-like definition a type as written in the file names."""
        text = written.split("<")[0].split("[")[0].strip().lstrip("*&").replace("::", ".")
        if not text or depth > MAX_HOPS:
            return None
        try:
            bound = self.value(ctx, text, depth)
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

    def local_type(self, ctx: FileContext, type_name: str, kind: LocalKind, depth: int
                    ) -> GraphDef | None:
        """The type a local has: as declared/constructed, or what its call returns; a
        class an alias names (`Model = Cart`); none for a literal's."""
        if kind is LocalKind.LITERAL:
            return None
        if kind is LocalKind.ALIAS:
            try:
                named = self.value(ctx, type_name, depth)
            except Outside:
                return None
            return named if isinstance(named, GraphDef) and \
                self.context(named.file_id).type_named(named.qualname) == named else None
        if kind is not LocalKind.CALL:
            return self.type_of(ctx, type_name, depth)
        text = type_name.replace("::", ".")
        try:
            made = self.value(ctx, text, depth)
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
        return self.type_of(callee_ctx, returned, depth + 1)

    # -- constructors (issue #45: `Route(...)` runs `Route.__init__`) ----------------------

    def runs(self, d: GraphDef) -> GraphDef:
        """What a call of `d` runs: a class's constructor when the corpus has one, else
        `d` itself (a function, or a class whose constructor is the language's)."""
        made = self.constructor(d)
        return made if made is not None else d

    def constructor(self, typ: GraphDef) -> GraphDef | None:
        """The constructor a call of the class `typ` runs: its own, or where the
        language passes them down, the first a base of the corpus defines."""
        r = rules(typ.lang)
        if typ.kind not in CONSTRUCTED or not (r.constructor or r.constructor_class_named):
            return None  # decided without reading its file: most targets are functions
        ctx = self.context(typ.file_id)
        if ctx.type_named(typ.qualname) != typ:
            return None
        if r.constructor_class_named:
            found = ctx.members.get(typ.qualname, {}).get(typ.name)
        elif r.constructor_inherited:
            found = self.member(typ, r.constructor, 0)
        else:
            found = ctx.members.get(typ.qualname, {}).get(r.constructor)
        return found if found is not None and found.kind in ("method", "function") else None

    def constructed(self, d: GraphDef) -> GraphDef | None:
        """The class `d` is the constructor of, if it is one."""
        r = rules(d.lang)
        owner_name = d.qualname.rsplit(".", 2)[-2] if "." in d.qualname else ""
        if d.name != r.constructor and not (r.constructor_class_named and d.name == owner_name):
            return None  # decided without reading its file
        ctx = self.context(d.file_id)
        owner = ctx.owner.get(d.qualname)
        typ = ctx.type_named(owner) if owner else None
        if typ is None or d.name not in (r.constructor, typ.name if r.constructor_class_named
                                         else ""):
            return None
        return typ

    def member_of(self, ctx: FileContext, owner: str, name: str) -> GraphDef | None:
        typ = ctx.type_named(owner)
        return self.member(typ, name, 0) if typ is not None else None

    def member(self, typ: GraphDef, name: str, depth: int) -> GraphDef | None:
        """Method (or nested definition) `name` of a type, through its bases."""
        ctx = self.context(typ.file_id)
        found = ctx.members.get(typ.qualname, {}).get(name)
        if found is not None:
            return found
        if depth >= MAX_HOPS:
            return None
        for base in ctx.bases.get(typ.qualname, []):
            base_def = self.type_of(ctx, base, depth + 1)
            if base_def is not None and base_def != typ:
                found = self.member(base_def, name, depth + 1)
                if found is not None:
                    return found
        return None


def _type_or_top(ctx: FileContext, name: str) -> GraphDef | None:
    return ctx.type_named(name) or ctx.top(name)


def _targets(defs: list[GraphDef]) -> list[GraphDef]:
    """The definitions a call may mean: not a name bound to a value (`binds_value`)."""
    return [d for d in defs if not binds_value(d.kind, d.lang)]
