"""One file's edges arranged for lookups: its definitions by qualname, the members of
its classes, the names its imports bind, its classes' bases, its typed locals."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from semlith.graph.rules import rules
from semlith.ingest.definitions import METHOD_OWNERS
from semlith.ingest.graph.records import (
    MODULE,
    Call,
    FileEdges,
    Import,
    ImportKind,
    Local,
    LocalKind,
)
from semlith.store.graph import EdgeFile, GraphDef

# Kinds a bare name can call: not methods (a Go method's qualname is its bare name).
CALLABLE_TOP = frozenset({"function", "class", "struct", "interface", "enum", "type",
                          "constant", "variable", "trait", "record", "object", "macro"})
_TYPE_RANK = {"class": 0, "struct": 0, "interface": 1, "trait": 1, "enum": 1, "type": 2,
              "record": 0, "object": 0, "impl": 5}


@dataclass(slots=True)
class FileContext:
    file: EdgeFile
    edges: FileEdges
    defs: list[GraphDef]
    by_qualname: dict[str, list[GraphDef]] = field(default_factory=dict)
    members: dict[str, dict[str, GraphDef]] = field(default_factory=dict)
    owner: dict[str, str] = field(default_factory=dict)  # method qualname -> its type
    bindings: dict[str, Import] = field(default_factory=dict)  # local name -> import
    wildcards: list[Import] = field(default_factory=list)
    bases: dict[str, list[str]] = field(default_factory=dict)
    locals: dict[tuple[str, str], list[Local]] = field(default_factory=dict)
    returns: dict[str, str] = field(default_factory=dict)  # function qualname -> type
    # JS members of objects (`app.set = function`, `View.prototype.lookup =`, `api = {
    # get() {} }`): the object as written -> its members by name; a member's qualname ->
    # its definitions with their objects
    objects: dict[str, dict[str, GraphDef]] = field(default_factory=dict)
    assigned: dict[str, list[tuple[GraphDef, str]]] = field(default_factory=dict)
    scope_parent: dict[str, str] = field(default_factory=dict)  # qualname -> enclosing one
    aliases: dict[str, list[str]] = field(default_factory=dict)  # `h = f`: f's last -> [h]

    @classmethod
    def build(cls, file: EdgeFile, edges: FileEdges, defs: list[GraphDef]) -> FileContext:
        ctx = cls(file, edges, defs)
        by_qualname: dict[str, list[GraphDef]] = defaultdict(list)
        for d in defs:
            by_qualname[d.qualname].append(d)
        ctx.by_qualname = dict(by_qualname)
        ctx._members(by_qualname)
        ctx._assigned_members(by_qualname)
        ctx._imports()
        bases: dict[str, list[str]] = defaultdict(list)
        for inh in edges.inherits:
            bases[inh.child].append(inh.parent)
        ctx.bases = dict(bases)
        locals_: dict[tuple[str, str], list[Local]] = defaultdict(list)
        for loc in edges.locals:
            if loc.kind is LocalKind.RETURNS:
                ctx.returns.setdefault(loc.scope, loc.type_name)
            else:
                locals_[(loc.scope, loc.name)].append(loc)
            if loc.kind is LocalKind.ALIAS:
                ctx.aliases.setdefault(loc.type_name.rsplit(".", 1)[-1], []).append(loc.name)
        ctx.locals = dict(locals_)
        return ctx

    def _members(self, by_qualname: dict[str, list[GraphDef]]) -> None:
        members: dict[str, dict[str, GraphDef]] = defaultdict(dict)
        for d in self.defs:
            if "." in d.qualname:  # a later definition of a name wins (typing.overload)
                parent = d.qualname.rsplit(".", 1)[0]
                members[parent][d.name] = d
                self.owner[d.qualname] = parent
        for c in self.edges.contains:  # Go, in a store cut before receivers qualified methods
            if c.kind == "method" and "." not in c.child and c.parent != MODULE:
                for d in by_qualname.get(c.child, []):
                    if d.kind == "method":
                        members[c.parent].setdefault(d.name, d)
                        self.owner[c.child] = c.parent
        self.members = dict(members)

    def _imports(self) -> None:
        for imp in self.edges.imports:
            if imp.kind is ImportKind.SIDE_EFFECT:
                continue
            if imp.name == "*":
                self.wildcards.append(imp)
                continue
            local = imp.alias or imp.name or _module_binding(imp.module, self.file.lang)
            if local:
                self.bindings.setdefault(local, imp)

    def _assigned_members(self, by_qualname: dict[str, list[GraphDef]]) -> None:
        """JS members of objects that are not classes: a member whose qualname is not its
        parent's plus its name was assigned to an object (`proto.handle` at top level);
        one a name owns that is not a prefix of it is an object literal's (`api = { get()
        {} }`, the edge query's `@owner`). Two literals' `get` share a qualname: each is
        told apart by the line of its record."""
        objects: dict[str, dict[str, GraphDef]] = defaultdict(dict)
        for c in self.edges.contains:
            nesting = c.parent == MODULE or c.child.startswith(f"{c.parent}.")
            if nesting:
                self.scope_parent[c.child] = c.parent
            if c.kind != "method" or (not nesting and self.type_named(c.parent) is not None):
                continue  # a Go method's record: its type owns it
            for d in by_qualname.get(c.child, []):
                if d.kind != "method" or not d.start_line <= c.line <= d.end_line:
                    continue
                if not nesting:
                    obj = c.parent
                elif c.child != (d.name if c.parent == MODULE else f"{c.parent}.{d.name}"):
                    obj = c.child[: -len(d.name) - 1]
                else:
                    continue  # a class's method, or a function nested in a function
                objects[obj].setdefault(d.name, d)
                self.assigned.setdefault(c.child, []).append((d, obj))
        self.objects = dict(objects)

    def this_object(self, caller: str, line: int) -> str:
        """The object `this` is at `line` in JS definition `caller` when that is not a
        class's method: the object it was assigned to or is a literal method of, or a
        constructor function with prototype members (`function View() {}` beside
        `View.prototype.lookup = ...`); else ""."""
        for d, obj in self.assigned.get(caller, ()):
            if d.start_line <= line <= d.end_line:
                return obj
        if caller in self.objects and any(d.kind == "function"
                                          for d in self.by_qualname.get(caller, [])):
            return caller
        return ""

    def default_export(self, local: str) -> GraphDef | None:
        """What a JS default import of this file binds: the definition named as the
        importer names it, else the file's one top-level class or function."""
        top = self.top(local)
        if top is not None:
            return top
        tops = [d for d in self.defs if d.qualname == d.name and d.kind in
                ("class", "function")]
        return tops[0] if len(tops) == 1 else None

    def this_member(self, call: Call) -> GraphDef | None:
        """`this.n()` in JS outside a class: `proto.n` inside `proto.m = function`."""
        return self.object_member(self.this_object(call.caller, call.line), call.name)

    def object_member(self, obj: str, name: str) -> GraphDef | None:
        """Member `name` of the JS object `obj` (`objects`) when this file defines it:
        `this.n()` in `proto.m = function` is `proto.n`, never another object's `n`."""
        return self.objects.get(obj, {}).get(name)

    def named_object_member(self, obj: str, name: str) -> GraphDef | None:
        """`obj.name` written in this file, `obj` an object it assigns members to and not
        a definition or an import of the file."""
        if self.top(obj) is not None or obj in self.bindings:
            return None
        return self.object_member(obj, name)

    def has_object_member(self, name: str) -> bool:
        """Whether this file assigns a member `name` to some object (`app.init = ...`)."""
        return any(name in members for members in self.objects.values())

    def parent_scope(self, scope: str) -> str:
        """The definition around `scope`: from `proto.m` the module, not `proto`."""
        return self.scope_parent.get(scope) or (scope.rsplit(".", 1)[0] if "." in scope
                                                else "")

    def top(self, name: str) -> GraphDef | None:
        """The top-level definition `name` of this file that a bare name can mean."""
        found = [d for d in self.by_qualname.get(name, [])
                 if d.kind in CALLABLE_TOP or (d.kind != "method" and d.kind != "impl")]
        return min(reversed(found), key=lambda d: _TYPE_RANK.get(d.kind, 3)) if found else None

    def type_named(self, qualname: str) -> GraphDef | None:
        """A class-like definition of this file by qualname (a struct before its impl)."""
        found = [d for d in self.by_qualname.get(qualname, [])
                 if d.kind in METHOD_OWNERS or d.kind in _TYPE_RANK]
        return min(found, key=lambda d: _TYPE_RANK.get(d.kind, 3)) if found else None

    def enclosing_type(self, caller: str) -> str:
        """The qualname of the type a method `caller` belongs to, or ""."""
        if caller in self.owner and self.type_named(self.owner[caller]) is not None:
            return self.owner[caller]
        parts = caller.split(".")
        for n in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:n])
            if self.type_named(prefix) is not None:
                return prefix
        return ""

    def local_type(self, caller: str, name: str) -> Local | None:
        """The typed binding `name` visible in `caller` (its scope, then outer ones)."""
        scope = caller
        while True:
            found = self.locals.get((scope, name))
            if found:
                return found[-1]
            if scope == MODULE:
                return None
            scope = scope.rsplit(".", 1)[0] if "." in scope else MODULE

    def field_type(self, type_qualname: str, name: str) -> Local | None:
        found = self.locals.get((type_qualname, name))
        return next((x for x in reversed(found) if x.field), found[-1]) if found else None


def _module_binding(module: str, lang: str) -> str:
    """The name a module import binds: `import a.b` binds `a` (Python), a Go import its
    last segment, `use a::b` its last."""
    binds = rules(lang).module_binding
    if binds == "first":
        return module.split(".")[0] if not module.startswith(".") else ""
    if binds == "last":
        return module.strip('"').rsplit("/", 1)[-1]
    if "::" in module:
        return module.rsplit("::", 1)[-1]
    return ""
