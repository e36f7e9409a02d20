"""Which definition a name asked about means (`f`, `Type.method`, `Type::method`), the
others it could mean, and the nearest real names when it means none (issues #22, #45).

Among the definitions of one name, concrete ones come first: a method that another
candidate overrides (`BaseRoute.matches` beside `Route.matches`) is the abstract
shape, not the code a reader is after.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from semlith.base.roles import is_test
from semlith.base.text import split_name
from semlith.errors import UnknownSymbol
from semlith.graph.calls import Key, key
from semlith.graph.names import MAX_HOPS
from semlith.graph.resolve import Resolver
from semlith.store.graph import GraphDef
from semlith.store.query import Selection

ALTERNATIVES = 5  # other definitions an answer names
_KIND_ORDER = {"class": 0, "struct": 0, "interface": 0, "function": 1, "method": 1}
_OVERRIDES_READ = 50  # candidates whose classes are compared, at most


@dataclass(frozen=True, slots=True)
class Chosen:
    """The definition a name means, how many others it has, and the first of those."""

    definition: GraphDef
    others: int
    alternatives: tuple[GraphDef, ...]


def choose(resolver: Resolver, name: str, sel: Selection) -> Chosen:
    """The definition `name` means among those the selection allows; UnknownSymbol
    with the nearest real names when none has that name (a qualifier that matches
    nothing is refused, never swapped for another owner's method)."""
    parts = split_name(name)
    if not parts:
        raise ValueError("the symbol name is empty")
    simple, wanted = parts[-1], ".".join(parts)
    rows = resolver.modules.with_edges(resolver.graph.definitions_selected(simple, sel))
    if len(parts) > 1:
        resolver.preload(d.file_id for d in rows if "." not in d.qualname)
        rows = [d for d in rows if d.qualname == wanted or d.qualname.endswith("." + wanted)
                or _owner_matches(resolver, d, parts[-2])]
    if not rows:
        raise UnknownSymbol(no_definition(resolver, name, sel))
    # a short name's definitions, concrete first; a name matched exactly needs no order
    shadowed = set() if any(d.qualname == wanted for d in rows) else \
        overridden(resolver, [d for d in rows if d.name == simple])
    rows.sort(key=lambda d: (d.name != simple, d.qualname != wanted, is_test(d.path),
                             key(d) in shadowed, _KIND_ORDER.get(d.kind, 2),
                             d.kind == "impl", d.path.count("/"), d.path, d.start_line))
    return Chosen(rows[0], len(rows) - 1, tuple(rows[1:1 + ALTERNATIVES]))


def _owner_matches(resolver: Resolver, d: GraphDef, owner: str) -> bool:
    """`d` belongs to type `owner`: by its qualname (`Cart.total`), or a Go method
    (qualname `Send`) through its receiver. Only the second reads the file: reading
    every definition's file of a common name was a fifth of a cold `impact` (#22)."""
    if "." in d.qualname:  # what `FileContext.owner` holds for it, without the file
        return d.qualname.rsplit(".", 1)[0] == owner
    return resolver.modules.get(d.file_id) is not None and \
        resolver.context(d.file_id).owner.get(d.qualname) == owner


def overridden(resolver: Resolver, defs: list[GraphDef]) -> set[Key]:
    """Those of `defs` (methods of one name) whose class another's class derives from:
    the method the other overrides."""
    owners: dict[Key, GraphDef] = {}
    for d in defs[:_OVERRIDES_READ]:
        if "." in d.qualname and resolver.modules.get(d.file_id) is not None:
            typ = resolver.context(d.file_id).type_named(d.qualname.rsplit(".", 1)[0])
            if typ is not None:
                owners[key(d)] = typ
    if len(owners) < 2:
        return set()
    ancestors: set[Key] = set()
    for typ in owners.values():
        ancestors |= _ancestors(resolver, typ)
    return {k for k, typ in owners.items() if key(typ) in ancestors}


def _ancestors(resolver: Resolver, typ: GraphDef) -> set[Key]:
    """The classes of the corpus `typ` derives from, MAX_HOPS deep."""
    found: set[Key] = set()
    level = [typ]
    for _ in range(MAX_HOPS):
        following = []
        for t in level:
            ctx = resolver.context(t.file_id)
            for base in ctx.bases.get(t.qualname, []):
                b = resolver.type_of(ctx, base, 0)
                if b is not None and key(b) not in found and key(b) != key(typ):
                    found.add(key(b))
                    following.append(b)
        level = following
    return found


def no_definition(resolver: Resolver, name: str, sel: Selection) -> str:
    """"no definition of `X`" with the nearest real names, concrete ones first."""
    where = f" with {sel.filters.describe()}" if sel.filters else ""
    parts = split_name(name) or [name.strip()]
    simple = parts[-1]
    names = resolver.graph.names_near(parts)
    same = sorted({q for n, q in names if n == simple})
    if len(same) > 1:
        same = _concrete_first(resolver, simple, same)
    close = same[:ALTERNATIVES] or difflib.get_close_matches(
        name, sorted({q for _, q in names}), n=ALTERNATIVES)
    hint = f"; nearest: {', '.join(close)}" if close else ""
    return f"no definition of `{name}`{where}{hint}"


def _concrete_first(resolver: Resolver, simple: str, qualnames: list[str]) -> list[str]:
    """`qualnames` (of definitions named `simple`) with the overridden ones last."""
    defs = [d for d in resolver.modules.with_edges(
        resolver.graph.definitions_selected(simple, Selection()))
        if d.name == simple]
    over = overridden(resolver, defs)
    shadowed = {d.qualname for d in defs if key(d) in over}
    return sorted(qualnames, key=lambda q: (q in shadowed, q))
