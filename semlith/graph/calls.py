"""Who calls a definition and what it calls, as an LSP's call hierarchy counts them
(issues #22, #45).

A call of a class is a call of the constructor it runs (`Route(...)` calls
`Route.__init__`, `new Cart()` calls `Cart`'s `constructor`, also through a subclass
that inherits it), so `impact` and `path` go on through it.

Every edge is resolved when it is asked for (`resolve.py`); a call that resolves outside
the corpus is no edge.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from semlith.graph.modules import languages_of
from semlith.graph.resolve import Resolver
from semlith.graph.rules import rules
from semlith.graph.status import Resolution
from semlith.ingest.graph.records import Call
from semlith.store.graph import GraphDef

MAX_SUBCLASSES = 200  # classes whose calls may run an inherited constructor, at most

Key = tuple[str, str, int]


def key(d: GraphDef) -> Key:
    return (d.path, d.qualname, d.start_line)


@dataclass(frozen=True, slots=True)
class CallerSite:
    """A call that may mean the target: the definition it is in (None at a file's top),
    its file, the call and its resolution."""

    caller: GraphDef | None
    path: str
    call: Call
    res: Resolution


def callers_of(resolver: Resolver, target: GraphDef) -> list[CallerSite]:
    """Every call that may mean `target` (settled or among an ambiguous call's
    candidates), in file and line order. A constructor's are the calls of its class
    and of the subclasses that inherit it; a class's are its instantiations."""
    wanted = key(target)
    # Only a constructor is called through other definitions (its class): mapping every
    # candidate of every site read their files, 4x a cold `neighbors` (fastapi).
    through = resolver.constructed(target) is not None
    # A call in another language never means it: not even fetched.
    sites = resolver.graph.calls_named(_names_calling(resolver, target),
                                       languages_of(target.lang))
    resolver.modules.load(s.file_id for s in sites)
    sites = [s for s in sites if resolver.modules.get(s.file_id) is not None]
    resolver.preload(s.file_id for s in sites)  # each is resolved below
    found = []
    for site in sites:
        res = resolver.resolve(site.file_id, site.call)
        if res is None or not any(key(t) == wanted or
                                  (through and key(resolver.runs(t)) == wanted)
                                  for t in res.targets):
            continue
        ctx = resolver.context(site.file_id)
        caller = ctx.by_qualname.get(site.call.caller)
        found.append(CallerSite(caller[0] if caller else None, ctx.file.path, site.call, res))
    found.sort(key=lambda c: (c.path, c.call.line))
    return found


def callees_of(resolver: Resolver, source: GraphDef) -> list[tuple[Call, Resolution]]:
    """(call, resolution) of every call `source` makes that means a corpus definition,
    a class's call as the constructor it runs."""
    return calls_made(resolver, source)[0]


def calls_made(resolver: Resolver, source: GraphDef
               ) -> tuple[list[tuple[Call, Resolution]], int]:
    """`callees_of`, and how many of its calls name nothing of the corpus (a builtin,
    the standard library, a dependency)."""
    file_id = resolver.file_id(source.path)
    if file_id is None:
        return [], 0
    found, outside = [], 0
    for call in resolver.graph.calls_from(file_id, source.qualname):
        res = resolver.resolve(file_id, call)
        if res is None:
            outside += 1
        else:
            found.append((call, Resolution(res.status, tuple(resolver.runs(t)
                                                             for t in res.targets))))
    return found, outside


def _names_calling(resolver: Resolver, target: GraphDef) -> list[str]:
    """The names a call of `target` can be written with: its own, the aliases its
    file binds to it (`h = md5_utf8`; an alias in another file is not looked for), and
    for a constructor its class's and those of the subclasses that inherit it; `new`
    too where `X.new()` makes an X."""
    names = [target.name, *resolver.context(target.file_id).aliases.get(target.name, ())]
    made = resolver.constructed(target)
    r = rules(target.lang)
    if made is not None:
        names.append(made.name)
        if r.constructor_inherited:
            names += [d.name for d in subclasses(resolver, made)
                      if resolver.constructor(d) == target]
    if r.instantiate and (made is not None or resolver.constructor(target) is not None
                          or resolver.context(target.file_id).type_named(target.qualname)
                          == target):
        names.append(r.instantiate)
    return list(dict.fromkeys(names))


def subclasses(resolver: Resolver, typ: GraphDef, limit: int = MAX_SUBCLASSES
               ) -> list[GraphDef]:
    """The classes of the corpus that derive from `typ`, nearest first (at most
    `limit`)."""
    seen, out = {key(typ)}, list[GraphDef]()
    queue = deque([typ])
    while queue and len(out) < limit:
        parent = queue.popleft()
        for file_id, inh in resolver.graph.inherits_named(parent.name):
            base = resolver.base_of(file_id, inh.parent)
            child = resolver.context(file_id).type_named(inh.child)
            if base is None or key(base) != key(parent) or child is None or \
                    key(child) in seen:
                continue
            seen.add(key(child))
            out.append(child)
            queue.append(child)
    return out[:limit]
