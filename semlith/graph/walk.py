"""The graph commands over one store: choose the definition a name means, its
neighbours (callers/callees, bases/subclasses, container/members, importers), what
reaches it (impact), and the chain from one definition to another (path).

Every edge is resolved when it is asked for (`resolve.py`). Answers are bounded by a
budget in characters of their JSON form and say what they left out.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from semlith.base.roles import is_test
from semlith.errors import UnknownSymbol
from semlith.graph.modules import languages_of
from semlith.graph.resolve import Resolver
from semlith.graph.status import Resolution, Status
from semlith.ingest.graph.records import MODULE, Call
from semlith.store.graph import GraphDef
from semlith.store.query import Selection
from semlith.types.graph import GraphEdge, GraphNode

KINDS = ("calls", "imports", "inherits", "contains")
MAX_VISITED = 20_000  # definitions a walk looks at before it gives up (path, impact)
_KIND_ORDER = {"class": 0, "struct": 0, "interface": 0, "function": 1, "method": 1}


@dataclass(slots=True)
class Bounded:
    """Edges kept within a character budget, and counts of what was left out."""

    budget: int
    used: int = 0
    kept: list[GraphEdge] = field(default_factory=list)
    left: int = 0
    left_files: set[str] = field(default_factory=set)

    @property
    def full(self) -> bool:
        """Nothing more fits (an entry is at least ~150 characters of JSON)."""
        return self.budget - self.used < 150

    def add(self, edge: GraphEdge) -> None:
        size = len(json.dumps(edge.as_json())) + 2
        if self.used + size > self.budget:
            self.left += 1
            self.left_files.add(edge.site)
            return
        self.used += size
        self.kept.append(edge)


def choose(resolver: Resolver, name: str, sel: Selection) -> tuple[GraphDef, int]:
    """The definition `name` (`f`, `Type.method`, `Type::method`) means among those the
    selection allows, and how many others there are; UnknownSymbol with the nearest
    real names when none has that name (a qualifier that matches nothing is refused,
    never swapped for another owner's method)."""
    parts = _parts(name)
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
    rows.sort(key=lambda d: (d.name != simple, d.qualname != wanted, is_test(d.path),
                             _KIND_ORDER.get(d.kind, 2), d.kind == "impl",
                             d.path.count("/"), d.path, d.start_line))
    return rows[0], len(rows) - 1


def _parts(name: str) -> list[str]:
    """A name split at its separators (`Type.method`, `Type::method`, `Type#method`,
    `Type->method`)."""
    return [p for p in re.split(r"::|\.|#|->", name.strip()) if p]


def _owner_matches(resolver: Resolver, d: GraphDef, owner: str) -> bool:
    """`d` belongs to type `owner`: by its qualname (`Cart.total`), or a Go method
    (qualname `Send`) through its receiver. Only the second reads the file: reading
    every definition's file of a common name was a fifth of a cold `impact` (#22)."""
    if "." in d.qualname:  # what `FileContext.owner` holds for it, without the file
        return d.qualname.rsplit(".", 1)[0] == owner
    return resolver.modules.get(d.file_id) is not None and \
        resolver.context(d.file_id).owner.get(d.qualname) == owner


def no_definition(resolver: Resolver, name: str, sel: Selection) -> str:
    where = f" with {sel.filters.describe()}" if sel.filters else ""
    parts = _parts(name) or [name.strip()]
    simple = parts[-1]
    names = resolver.graph.names_near(parts)
    same = sorted({q for n, q in names if n == simple})[:5]
    close = same or difflib.get_close_matches(name, sorted({q for _, q in names}), n=5)
    hint = f"; nearest: {', '.join(close)}" if close else ""
    return f"no definition of `{name}`{where}{hint}"


def node(store: str, d: GraphDef) -> GraphNode:
    return GraphNode(store, d.qualname, d.path, d.start_line, d.end_line, d.kind)


def _key(d: GraphDef) -> tuple[str, str, int]:
    return (d.path, d.qualname, d.start_line)


# -- calls -------------------------------------------------------------------------------


def callers_of(resolver: Resolver, target: GraphDef
               ) -> list[tuple[GraphDef | None, str, Call, Resolution]]:
    """(calling definition or None at a file's top, its file, the call, resolution) of
    every call that may mean `target`."""
    found = []
    # A call in another language never means it: not even fetched.
    sites = resolver.graph.calls_named([target.name], languages_of(target.lang))
    resolver.modules.load(s.file_id for s in sites)
    sites = [s for s in sites if resolver.modules.get(s.file_id) is not None]
    resolver.preload(s.file_id for s in sites)  # each is resolved below
    for site in sites:
        res = resolver.resolve(site.file_id, site.call)
        if res is None or not any(_key(t) == _key(target) for t in res.targets):
            continue
        ctx = resolver.context(site.file_id)
        caller = ctx.by_qualname.get(site.call.caller)
        found.append((caller[0] if caller else None, ctx.file.path, site.call, res))
    return found


def callees_of(resolver: Resolver, source: GraphDef) -> list[tuple[Call, Resolution]]:
    """(call, resolution) of every call `source` makes that means a corpus definition."""
    file_id = resolver.file_id(source.path)
    if file_id is None:
        return []
    found = []
    for call in resolver.graph.calls_from(file_id, source.qualname):
        res = resolver.resolve(file_id, call)
        if res is not None:
            found.append((call, res))
    return found


def _edge(store: str, d: GraphDef | None, site: str, line: int, kind: str, status: Status,
          candidates: int = 1, depth: int = 1) -> GraphEdge:
    if d is None:  # a call at a file's top level
        return GraphEdge(store, MODULE, site, 1, 1, line, site, kind, str(status), candidates,
                         depth)
    return GraphEdge(store, d.qualname, d.path, d.start_line, d.end_line, line, site, kind,
                     str(status), candidates, depth)


def call_neighbours(store: str, resolver: Resolver, target: GraphDef, all_edges: bool,
                    callers: Bounded, callees: Bounded, omitted: dict[str, int]) -> None:
    for caller, path, call, res in sorted(callers_of(resolver, target),
                                          key=lambda c: (c[1], c[2].line)):
        if not res.settled and not all_edges:
            omitted["ambiguous_callers"] = omitted.get("ambiguous_callers", 0) + 1
            continue
        callers.add(_edge(store, caller, path, call.line, "calls", res.status,
                          len(res.targets)))
    for call, res in callees_of(resolver, target):
        if res.settled:
            callees.add(_edge(store, res.targets[0], target.path, call.line, "calls",
                              res.status))
        elif all_edges:
            for t in res.targets:
                callees.add(_edge(store, t, target.path, call.line, "calls", res.status,
                                  len(res.targets)))
        else:  # one row: the name as written and how many definitions it could mean
            written = f"{call.receiver}.{call.name}" if call.receiver else call.name
            callees.add(GraphEdge(store, written, "", 0, 0, call.line, target.path, "calls",
                                  str(res.status), len(res.targets)))


# -- inheritance, containment, imports ------------------------------------------------


def other_neighbours(store: str, resolver: Resolver, target: GraphDef, kinds: Sequence[str],
                     before: Bounded, after: Bounded) -> None:
    """Subclasses/bases, container/members, importers: `before` holds what points at
    the target (subclasses, its container, importers), `after` what it points at."""
    file_id = resolver.file_id(target.path)
    if file_id is None:
        return
    ctx = resolver.context(file_id)
    if "inherits" in kinds:
        for other, inh in resolver.graph.inherits_named(target.name):
            base = resolver.base_of(other, inh.parent)
            if base is not None and _key(base) == _key(target):
                child = resolver.context(other).type_named(inh.child)
                before.add(_edge(store, child, resolver.modules.file(other).path, inh.line,
                                 "inherits", Status.RESOLVED))
        for inh in ctx.edges.inherits:
            if inh.child == target.qualname:
                base = resolver.base_of(file_id, inh.parent)
                if base is not None:
                    after.add(_edge(store, base, target.path, inh.line, "inherits",
                                    Status.EXTRACTED if base.path == target.path
                                    else Status.RESOLVED))
    if "contains" in kinds:
        owner = ctx.owner.get(target.qualname)
        parent = ctx.type_named(owner) if owner else None
        if parent is not None:
            before.add(_edge(store, parent, target.path, target.line, "contains",
                             Status.EXTRACTED))
        for member in ctx.members.get(target.qualname, {}).values():
            after.add(_edge(store, member, target.path, member.line, "contains",
                            Status.EXTRACTED))
    if "imports" in kinds:
        for other, imp in resolver.graph.imports_named(target.name):
            bound = resolver.imported(other, imp.alias or imp.name)
            if bound is not None and _key(bound) == _key(target):
                before.add(GraphEdge(store, "<module>", resolver.modules.file(other).path, 1,
                                     1, imp.line, resolver.modules.file(other).path,
                                     "imports", str(Status.RESOLVED)))


# -- reachability -------------------------------------------------------------------------


def impact(store: str, resolver: Resolver, target: GraphDef, depth: int, all_edges: bool,
           out: Bounded, omitted: dict[str, int]) -> None:
    """Reverse reachability over calls, breadth first (fewest hops first)."""
    seen = {_key(target)}
    frontier = [target]
    for level in range(1, depth + 1):
        following: list[GraphDef] = []
        for n, d in enumerate(frontier):
            if out.full:  # what would follow cannot be shown: say so, do not walk it
                omitted["unwalked"] = omitted.get("unwalked", 0) + len(frontier) - n
                return
            for caller, path, call, res in sorted(callers_of(resolver, d),
                                                  key=lambda c: (c[1], c[2].line)):
                if not res.settled and not all_edges:
                    omitted["ambiguous_callers"] = omitted.get("ambiguous_callers", 0) + 1
                    continue
                key = _key(caller) if caller else (path, MODULE, 0)
                if key in seen:
                    continue
                seen.add(key)
                out.add(_edge(store, caller, path, call.line, "calls", res.status,
                              len(res.targets), level))
                if caller is not None:
                    following.append(caller)
        if len(seen) > MAX_VISITED:
            omitted["unwalked"] = len(following)
            break
        frontier = following


@dataclass(frozen=True, slots=True)
class _Step:
    to: GraphDef
    line: int
    site: str
    status: Status
    candidates: int


def shortest_path(resolver: Resolver, source: GraphDef, target: GraphDef, all_edges: bool
                  ) -> tuple[list[_Step], str]:
    """The fewest-hop chain of calls from `source` to `target`: settled edges only, or
    ambiguous ones too with `all_edges`. With settled edges only and no chain, the
    second value names the first ambiguous call that, crossed, would have connected
    them (so the answer can say what it refused to cross)."""
    chain = _bfs(resolver, source, target, all_edges)
    if chain is not None or all_edges:
        return chain or [], ""
    guess = _bfs(resolver, source, target, True)
    if not guess:
        return [], ""
    hop = next(s for s in guess if s.status is Status.AMBIGUOUS)
    return [], (f"`{hop.to.name}` at {hop.site}:{hop.line} could mean {hop.candidates} "
                "definitions")


def _bfs(resolver: Resolver, source: GraphDef, target: GraphDef, all_edges: bool
         ) -> list[_Step] | None:
    back: dict[tuple[str, str, int], tuple[tuple[str, str, int], _Step] | None] = {
        _key(source): None}
    queue = deque([source])
    while queue and len(back) < MAX_VISITED:
        d = queue.popleft()
        for call, res in callees_of(resolver, d):
            if not res.settled and not all_edges:
                continue
            for t in res.targets:
                if _key(t) in back:
                    continue
                back[_key(t)] = (_key(d), _Step(t, call.line, d.path, res.status,
                                                len(res.targets)))
                if _key(t) == _key(target):
                    return _unwind(back, _key(t))
                queue.append(t)
    return None


def _unwind(back: dict[tuple[str, str, int], tuple[tuple[str, str, int], _Step] | None],
            key: tuple[str, str, int]) -> list[_Step]:
    steps: list[_Step] = []
    link = back[key]
    while link is not None:
        previous, step = link
        steps.append(step)
        link = back[previous]
    return steps[::-1]


def path_edges(store: str, steps: Iterable[_Step]) -> list[GraphEdge]:
    return [_edge(store, s.to, s.site, s.line, "calls", s.status, s.candidates, n)
            for n, s in enumerate(steps, 1)]
