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

from semlith.graph.byname import ByName
from semlith.graph.context import FileContext
from semlith.graph.names import MAX_HOPS, Module, Names
from semlith.graph.outside import Outside, is_literal, made_outside
from semlith.graph.rules import rules
from semlith.graph.status import Resolution, Status
from semlith.ingest.graph.records import Call, Local, LocalKind, QualifierKind
from semlith.store.graph import GraphDef, GraphStore


class Resolver(Names):
    """Resolves calls of one store's graph; caches per file and per name for its life."""

    def __init__(self, graph: GraphStore) -> None:
        super().__init__(graph)
        self.by_name = ByName(self.named, self.context, self.modules)

    # -- a call ------------------------------------------------------------------------

    def resolve(self, file_id: int, call: Call) -> Resolution | None:
        """The definition(s) `call` in file `file_id` means; None when not in the corpus."""
        ctx = self.context(file_id)
        try:
            aliased = self._aliased(ctx, call)
            if aliased:  # each of them, on some path: every one is an edge
                local = all(d.file_id == file_id for d in aliased)
                return Resolution(Status.EXTRACTED if local else Status.RESOLVED, aliased)
            found = self._specific(ctx, call)
        except Outside:
            return None
        if found is not None:
            status = Status.EXTRACTED if found.file_id == file_id else Status.RESOLVED
            return Resolution(status, (found,))
        return self.by_name.resolve(ctx, call)

    def _specific(self, ctx: FileContext, call: Call) -> GraphDef | None:
        q = call.qualifier_kind
        if q is QualifierKind.NONE:
            return self._bare(ctx, call)
        if q is QualifierKind.SELF:
            owner = ctx.enclosing_type(call.caller)
            if call.receiver in ("Self", "static", "self::") and not owner:
                return None
            return self.member_of(ctx, owner, call.name) if owner else ctx.this_member(call)
        if q is QualifierKind.SUPER:
            return self._on_super(ctx, call)
        if q is QualifierKind.MEMBER:
            return self._on_member(ctx, call)
        if q in (QualifierKind.NAME, QualifierKind.MODULE_PATH):
            return self._on_name(ctx, call)
        if q is QualifierKind.OTHER and is_literal(call.receiver, ctx.file.lang):
            raise Outside
        return None

    def _aliased(self, ctx: FileContext, call: Call) -> tuple[GraphDef, ...]:
        """`h()` where the caller's own scope binds `h` only to functions or classes by
        name (`h = md5_utf8` on one branch, `h = sha_utf8` on another): all of them; ()
        when it binds `h` otherwise, or some alias names nothing of the corpus. An outer
        scope's alias is not followed: a parameter, which is not recorded, may shadow it
        (PyCG's `kwargs/assigned_call`)."""
        if call.qualifier_kind is not QualifierKind.NONE or self._nested(ctx, call):
            return ()
        bound = ctx.locals.get((call.caller, call.name), [])
        if not bound or any(b.kind is not LocalKind.ALIAS for b in bound):
            return ()
        found = []
        for b in bound:
            inner = self._nested(ctx, Call(call.line, call.column, b.type_name, "",
                                           QualifierKind.NONE, call.caller)) \
                if "." not in b.type_name else None
            named = inner or self.value(ctx, b.type_name, 0)
            if not isinstance(named, GraphDef):
                return ()
            found.append(named)
        return tuple(dict.fromkeys(found))

    def _on_super(self, ctx: FileContext, call: Call) -> GraphDef | None:
        """`super().m()`, `super(...)`: the first base of the corpus that has it."""
        owner = ctx.enclosing_type(call.caller)
        if not owner:
            return None
        for base in ctx.bases.get(owner, []):
            typ = self.type_of(ctx, base, 0)
            if typ is not None:
                if call.name in ("super", "base", "parent"):
                    return typ
                found = self.member(typ, call.name, 0)
                if found is not None:
                    return found
        raise Outside  # every base outside the corpus, or no such method in them

    def _bare(self, ctx: FileContext, call: Call) -> GraphDef | None:
        name, lang = call.name, ctx.file.lang
        found = self._nested(ctx, call)
        if found is None and rules(lang).bare_call_on_self:  # a call on `this`
            owner = ctx.enclosing_type(call.caller)
            found = self.member_of(ctx, owner, name) if owner else None
        if found is None:
            found = ctx.top(name)
        if found is not None:
            return found
        bound = self.binding(ctx, name, 0)
        if isinstance(bound, GraphDef):
            return bound
        if isinstance(bound, Module):
            return None
        found = self.beside(ctx, name, FileContext.top)
        for imp in ctx.wildcards if found is None else ():
            found = self.export(self.modules.resolve(ctx.file.id, imp.module), name, 0)
            if found is not None:
                break
        if found is None and (name in rules(lang).builtins or rules(lang).unbound_is_outside):
            raise Outside  # a builtin, or a name neither defined nor imported: not ours
        return found

    def _nested(self, ctx: FileContext, call: Call) -> GraphDef | None:
        """A definition nested in the caller or around it, innermost first."""
        scope = call.caller
        while scope and scope != "<module>":
            inner = ctx.by_qualname.get(f"{scope}.{call.name}")
            if (inner and ctx.owner.get(inner[0].qualname) is None) or \
                    (inner and ctx.type_named(scope) is None):
                return inner[0]
            scope = ctx.parent_scope(scope)
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
        return self.member(typ, call.name, 0) if typ is not None else None

    def _field_type(self, ctx: FileContext, owner: str, field: str, depth: int
                    ) -> GraphDef | None:
        local = ctx.field_type(owner, field)
        if local is not None:
            return self.local_type(ctx, local.type_name, local.kind, 0)
        if depth < MAX_HOPS:  # a field a base class sets
            for base in ctx.bases.get(owner, []):
                typ = self.type_of(ctx, base, depth + 1)
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
            typ = self.local_type(ctx, local.type_name, local.kind, 0)
            if typ is None and self._foreign(ctx, local):
                raise Outside  # a declared type the corpus does not define (`List<T>`)
            return self.member(typ, call.name, 0) if typ is not None else None
        if head == receiver and (found := ctx.named_object_member(head, call.name)):
            return found  # `app.set()` beside `app.set = function`
        bound = self.value(ctx, receiver, 0)
        if isinstance(bound, Module):
            found = self.export(list(bound.files), call.name, 0)
            if found is None and not any(self.context(f).has_object_member(call.name)
                                         for f in bound.files):
                raise Outside  # else `proto.init()`, proto an `app` whose `app.init = ...`
            return found
        if bound is not None:
            return self._on_definition(ctx, bound, call)
        if head == receiver and receiver[:1].isupper() and \
                not self.named(receiver, ctx.file.lang):
            raise Outside  # `String.format`, `Math.max`: a type the corpus does not define
        if head == receiver and receiver in rules(ctx.file.lang).builtin_types:
            raise Outside  # `object.__repr__(self)`, `dict.fromkeys(...)`
        return None

    def _on_definition(self, ctx: FileContext, bound: GraphDef, call: Call) -> GraphDef | None:
        """`Cart.create()`: a member of what the receiver names; `Cart.new()` (Ruby) makes
        a Cart."""
        member = self.member(bound, call.name, 0)
        if member is None and call.name == rules(ctx.file.lang).instantiate and \
                self.context(bound.file_id).type_named(bound.qualname) == bound:
            return bound
        return member

    def _foreign(self, ctx: FileContext, local: Local) -> bool:
        return made_outside(local, ctx.file.lang, lambda name: self.value(ctx, name, 0))
