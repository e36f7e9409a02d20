"""The graph commands over the stores a request addresses: what `Library.neighbors`,
`impact` and `path` answer. The first store that defines the name answers."""

from __future__ import annotations

import dataclasses
import threading
import weakref
from collections.abc import Sequence

from semlith.errors import UnknownSymbol
from semlith.graph import walk
from semlith.graph.choose import Chosen, choose
from semlith.graph.modules import languages_of
from semlith.graph.paths import path_edges, shortest_path
from semlith.graph.resolve import Resolver
from semlith.graph.walk import Bounded
from semlith.ingest.definitions import binds_value
from semlith.store import Store
from semlith.store.graph import GraphDef, GraphStore
from semlith.store.query import Selection
from semlith.types import Definition, Filters
from semlith.types.graph import GraphNode, GraphPath, Impact, Neighbors

CHARS_PER_TOKEN = 4  # the budget is in tokens; answers are measured in characters
DEFAULT_BUDGET = 4_000  # tokens: 16,000 characters
MAX_BUDGET = 25_000  # one major MCP client refuses a tool result above 25,000 tokens
MAX_DEPTH = 10
# Characters of an answer kept for what is not a list: its `omitted` counts, and in the
# text forms the lines that say what was left out.
NOTES = 600


def _chars(budget: int) -> int:
    if not 100 <= budget <= MAX_BUDGET:
        raise ValueError(f"budget must be 100 to {MAX_BUDGET:,} tokens, got {budget}")
    return budget * CHARS_PER_TOKEN


# One resolver per store while its generation stands: its per-file and per-name caches
# serve the next question too (a store's generation moves with every committed change,
# so a cached resolution is never stale).
_RESOLVERS: weakref.WeakKeyDictionary[GraphStore, tuple[int, Resolver]] = \
    weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def resolver_of(graph: GraphStore) -> Resolver:
    generation = graph.generation()
    with _LOCK:
        held = _RESOLVERS.get(graph)
        if held is not None and held[0] == generation:
            return held[1]
    resolver = Resolver(graph)
    with _LOCK:
        _RESOLVERS[graph] = (generation, resolver)
    return resolver


def _resolvers(opened: Sequence[tuple[str, Store]]) -> list[tuple[str, Resolver]]:
    # A mirror (indexed by another machine) has a catalog without edges here.
    found = [(label, resolver_of(store.graph)) for label, store in opened
             if store.graph.has_edges]
    if not found and opened:
        raise UnknownSymbol(f"store {opened[0][0]!r} is a mirror without a catalog here: "
                            "its code graph lives on the machine that indexes it")
    return found


def _choose(opened: Sequence[tuple[str, Store]], name: str, filters: Filters
            ) -> tuple[str, Resolver, Chosen]:
    sel = Selection.of(filters)
    first: UnknownSymbol | None = None
    for label, resolver in _resolvers(opened):
        try:
            chosen = choose(resolver, name, sel)
        except UnknownSymbol as exc:
            first = first or exc
            continue
        return label, resolver, chosen
    raise first or UnknownSymbol(f"no definition of `{name}`: no store is open")


def _omitted(omitted: dict[str, int], **parts: Bounded) -> dict[str, int]:
    for name, bounded in parts.items():
        if bounded.left:
            omitted[name] = bounded.left
    files = set().union(*(b.left_files for b in parts.values()))
    if files:
        omitted["files"] = len(files)
    return omitted


def _room(chars: int, *fixed: GraphNode) -> int:
    """What is left of `chars` for an answer's lists: less its nodes and NOTES."""
    return max(0, chars - min(NOTES, chars // 4) - sum(walk.size_of(n) for n in fixed))


def _alternatives(label: str, chosen: Chosen, room: int) -> tuple[GraphNode, ...]:
    """The other definitions to name, as many as fit in `room` characters."""
    out: list[GraphNode] = []
    for d in chosen.alternatives:
        n = walk.node(label, d)
        room -= walk.size_of(n)
        if room < 0:
            break
        out.append(n)
    return tuple(out)


def neighbors(opened: Sequence[tuple[str, Store]], name: str, *, kinds: Sequence[str],
              filters: Filters, all_edges: bool, budget: int) -> Neighbors:
    chars = _chars(budget)
    bad = [k for k in kinds if k not in walk.KINDS]
    if bad:
        raise ValueError(f"unknown edge kind {bad[0]!r}; kinds: {', '.join(walk.KINDS)}")
    label, resolver, chosen = _choose(opened, name, filters)
    d, symbol = chosen.definition, walk.node(label, chosen.definition)
    room = _room(chars, symbol)
    alternatives = _alternatives(label, chosen, room // 8)
    room -= sum(walk.size_of(n) for n in alternatives)
    callers, callees = Bounded(room // 2), Bounded(0)
    omitted: dict[str, int] = _bound(d)
    wanted = kinds or walk.KINDS
    if "calls" in wanted:  # what callers leave is the callees' to spend
        walk.caller_edges(label, resolver, d, all_edges, callers, omitted)
        callees = Bounded((room - callers.used) * 2 // 3)
        walk.callee_edges(label, resolver, d, all_edges, callees, omitted)
    rest = room - callers.used - callees.used
    links_in, links_out = Bounded(rest // 2), Bounded(rest // 2)
    walk.other_neighbours(label, resolver, d, wanted, links_in, links_out)
    return Neighbors(symbol, tuple(callers.kept), tuple(callees.kept),
                     _omitted(omitted, callers=callers, callees=callees, links_in=links_in,
                              links_out=links_out), chosen.others, tuple(links_in.kept),
                     tuple(links_out.kept), alternatives)


def impact(opened: Sequence[tuple[str, Store]], name: str, *, depth: int, filters: Filters,
           all_edges: bool, budget: int) -> Impact:
    chars = _chars(budget)
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be 1 to {MAX_DEPTH}, got {depth}")
    label, resolver, chosen = _choose(opened, name, filters)
    symbol = walk.node(label, chosen.definition)
    room = _room(chars, symbol)
    alternatives = _alternatives(label, chosen, room // 8)
    out = Bounded(room - sum(walk.size_of(n) for n in alternatives))
    omitted: dict[str, int] = _bound(chosen.definition)
    walk.impact(label, resolver, chosen.definition, depth, all_edges, out, omitted)
    unread = resolver.unread_files(languages_of(chosen.definition.lang))
    if unread:
        omitted["unread_files"] = unread
    return Impact(symbol, tuple(out.kept), _omitted(omitted, entries=out), chosen.others,
                  alternatives)


def path(opened: Sequence[tuple[str, Store]], source: str, target: str, *, filters: Filters,
         all_edges: bool, budget: int) -> GraphPath:
    chars = _chars(budget)
    label, resolver, chosen = _choose(opened, source, filters)
    try:
        b = choose(resolver, target, Selection.of(filters)).definition
    except UnknownSymbol as exc:
        raise UnknownSymbol(f"{exc} (in store {label!r}, where `{source}` is)") from None
    a = chosen.definition
    ends = (walk.node(label, a), walk.node(label, b))
    chain = shortest_path(resolver, a, b, all_edges)
    hops, left = path_edges(label, chain.steps, _room(chars, *ends))
    hypothesis = any(h.status == "ambiguous" for h in hops)
    return GraphPath(*ends, tuple(hops), hypothesis, chain.blocked, len(chain.steps),
                     {"hops": left} if left else {}, chain.stopped)


def with_calls(opened: Sequence[tuple[str, Store]], hit: Definition, shown: int = 10
               ) -> Definition:
    """`hit` with its settled one-hop callers and callees (`symbol` shows them)."""
    store = [(label, s) for label, s in opened if label == hit.store and s.graph.has_edges]
    if not store:
        return hit
    try:
        near = neighbors(store, hit.qualname or hit.name, kinds=("calls",),
                         filters=Filters(paths=(hit.path,)), all_edges=False, budget=1000)
    except (UnknownSymbol, ValueError):
        return hit
    if near.symbol.start_line != hit.start_line:
        return hit  # another definition of that name in the file
    return dataclasses.replace(
        hit, callers=tuple(f"{e.name} {e.evidence}" for e in near.callers[:shown]),
        callees=tuple(f"{e.name} {e.locator}" for e in near.callees[:shown] if e.path))


def _bound(d: GraphDef) -> dict[str, int]:
    """`value_binding` for a name bound to a value (`binds_value`): calls through it
    call the value, so its callers are not counted, and it says so."""
    return {"value_binding": 1} if binds_value(d.kind, d.lang) else {}
