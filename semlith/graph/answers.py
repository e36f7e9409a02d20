"""The graph commands over the stores a request addresses: what `Library.neighbors`,
`impact` and `path` answer. The first store that defines the name answers."""

from __future__ import annotations

import dataclasses
import threading
import weakref
from collections.abc import Sequence

from semlith.errors import UnknownSymbol
from semlith.graph import walk
from semlith.graph.resolve import Resolver
from semlith.graph.walk import Bounded
from semlith.store import Store
from semlith.store.graph import GraphDef, GraphStore
from semlith.store.query import Selection
from semlith.types import Definition, Filters
from semlith.types.graph import GraphPath, Impact, Neighbors

CHARS_PER_TOKEN = 4  # the budget is in tokens; answers are measured in characters
DEFAULT_BUDGET = 4_000  # tokens: 16,000 characters
MAX_BUDGET = 25_000  # one major MCP client refuses a tool result above 25,000 tokens
MAX_DEPTH = 10


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
            ) -> tuple[str, Resolver, GraphDef, int]:
    sel = Selection.of(filters)
    first: UnknownSymbol | None = None
    for label, resolver in _resolvers(opened):
        try:
            d, others = walk.choose(resolver, name, sel)
        except UnknownSymbol as exc:
            first = first or exc
            continue
        return label, resolver, d, others
    raise first or UnknownSymbol(f"no definition of `{name}`: no store is open")


def _omitted(omitted: dict[str, int], **parts: Bounded) -> dict[str, int]:
    for name, bounded in parts.items():
        if bounded.left:
            omitted[name] = bounded.left
    files = set().union(*(b.left_files for b in parts.values()))
    if files:
        omitted["files"] = len(files)
    return omitted


def neighbors(opened: Sequence[tuple[str, Store]], name: str, *, kinds: Sequence[str],
              filters: Filters, all_edges: bool, budget: int) -> Neighbors:
    chars = _chars(budget)
    bad = [k for k in kinds if k not in walk.KINDS]
    if bad:
        raise ValueError(f"unknown edge kind {bad[0]!r}; kinds: {', '.join(walk.KINDS)}")
    label, resolver, d, others = _choose(opened, name, filters)
    callers, callees = Bounded(chars // 2), Bounded(chars // 2)
    omitted: dict[str, int] = {}
    chosen = kinds or walk.KINDS
    if "calls" in chosen:
        walk.call_neighbours(label, resolver, d, all_edges, callers, callees, omitted)
    walk.other_neighbours(label, resolver, d, chosen, callers, callees)
    return Neighbors(walk.node(label, d), tuple(callers.kept), tuple(callees.kept),
                     _omitted(omitted, callers=callers, callees=callees), others)


def impact(opened: Sequence[tuple[str, Store]], name: str, *, depth: int, filters: Filters,
           all_edges: bool, budget: int) -> Impact:
    chars = _chars(budget)
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be 1 to {MAX_DEPTH}, got {depth}")
    label, resolver, d, others = _choose(opened, name, filters)
    out, omitted = Bounded(chars), dict[str, int]()
    walk.impact(label, resolver, d, depth, all_edges, out, omitted)
    return Impact(walk.node(label, d), tuple(out.kept), _omitted(omitted, entries=out), others)


def path(opened: Sequence[tuple[str, Store]], source: str, target: str, *, filters: Filters,
         all_edges: bool, budget: int) -> GraphPath:
    _chars(budget)
    label, resolver, a, _ = _choose(opened, source, filters)
    try:
        b, _ = walk.choose(resolver, target, Selection.of(filters))
    except UnknownSymbol as exc:
        raise UnknownSymbol(f"{exc} (in store {label!r}, where `{source}` is)") from None
    steps, blocked = walk.shortest_path(resolver, a, b, all_edges)
    hops = walk.path_edges(label, steps)
    hypothesis = any(h.status == "ambiguous" for h in hops)
    return GraphPath(walk.node(label, a), walk.node(label, b), tuple(hops), hypothesis,
                     blocked)


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
