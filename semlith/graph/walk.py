"""The graph's answers over one store: a definition's neighbours and what reaches it
(impact), each within a budget (issues #22, #45, #47).

Neighbours are callers and callees; bases and subclasses, container and members,
importers apart. The budget is in characters of an answer's JSON form, and an answer
says what it left out and whether a count is complete.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from semlith.graph.calls import callers_of, calls_made, key
from semlith.graph.modules import languages_of
from semlith.graph.resolve import Resolver
from semlith.graph.status import Status
from semlith.ingest.graph.records import MODULE
from semlith.store.graph import GraphDef
from semlith.types.graph import GraphEdge, GraphNode

KINDS = ("calls", "imports", "inherits", "contains")
MAX_VISITED = 20_000  # definitions a walk looks at before it gives up (path, impact)


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
        size = size_of(edge)
        if self.used + size > self.budget:
            self.left += 1
            self.left_files.add(edge.site)
            return
        self.used += size
        self.kept.append(edge)


def size_of(value: GraphEdge | GraphNode) -> int:
    """Characters of `value` in an answer's JSON (with its separator)."""
    return len(json.dumps(value.as_json())) + 2


def bump(omitted: dict[str, int], part: str, n: int = 1) -> None:
    omitted[part] = omitted.get(part, 0) + n


def node(store: str, d: GraphDef) -> GraphNode:
    return GraphNode(store, d.qualname, d.path, d.start_line, d.end_line, d.kind)


# -- calls -------------------------------------------------------------------------------


def caller_edges(store: str, resolver: Resolver, target: GraphDef, all_edges: bool,
                 callers: Bounded, omitted: dict[str, int]) -> None:
    """Who calls `target`; ambiguous call sites counted, or shown with `all_edges`."""
    for site in callers_of(resolver, target):
        if not site.res.settled and not all_edges:
            bump(omitted, "ambiguous_callers")
            continue
        callers.add(edge(store, site.caller, site.path, site.call.line, "calls",
                         site.res.status, len(site.res.targets)))
    unread = resolver.unread_files(languages_of(target.lang))
    if unread:
        omitted["unread_files"] = unread


def callee_edges(store: str, resolver: Resolver, target: GraphDef, all_edges: bool,
                 callees: Bounded, omitted: dict[str, int]) -> None:
    """What `target` calls; an ambiguous call as one row unless `all_edges`."""
    made, outside = calls_made(resolver, target)
    for call, res in made:
        if res.settled:
            for t in res.targets:
                callees.add(edge(store, t, target.path, call.line, "calls", res.status))
        elif all_edges:
            for t in res.targets:
                callees.add(edge(store, t, target.path, call.line, "calls", res.status,
                                 len(res.targets)))
        else:  # one row: the name as written and how many definitions it could mean
            written = f"{call.receiver}.{call.name}" if call.receiver else call.name
            callees.add(GraphEdge(store, written, "", 0, 0, call.line, target.path, "calls",
                                  str(res.status), len(res.targets)))
    if outside:
        omitted["outside_callees"] = outside


def edge(store: str, d: GraphDef | None, site: str, line: int, kind: str, status: Status,
         candidates: int = 1, depth: int = 1) -> GraphEdge:
    if d is None:  # a call at a file's top level
        return GraphEdge(store, MODULE, site, 1, 1, line, site, kind, str(status), candidates,
                         depth)
    return GraphEdge(store, d.qualname, d.path, d.start_line, d.end_line, line, site, kind,
                     str(status), candidates, depth)


# -- inheritance, containment, imports ------------------------------------------------


def other_neighbours(store: str, resolver: Resolver, target: GraphDef, kinds: Sequence[str],
                     links_in: Bounded, links_out: Bounded) -> None:
    """Subclasses/bases, container/members, importers: `links_in` holds what points at
    the target (subclasses, its container, importers), `links_out` what it points at."""
    file_id = resolver.file_id(target.path)
    if file_id is None:
        return
    if "inherits" in kinds:
        _inherits(store, resolver, target, file_id, links_in, links_out)
    if "contains" in kinds:
        ctx = resolver.context(file_id)
        owner = ctx.owner.get(target.qualname)
        parent = ctx.type_named(owner) if owner else None
        if parent is not None:
            links_in.add(edge(store, parent, target.path, target.line, "contains",
                               Status.EXTRACTED))
        for member in ctx.members.get(target.qualname, {}).values():
            links_out.add(edge(store, member, target.path, member.line, "contains",
                                Status.EXTRACTED))
    if "imports" in kinds:
        for other, imp in resolver.graph.imports_named(target.name):
            bound = resolver.imported(other, imp.alias or imp.name)
            if bound is not None and key(bound) == key(target):
                path = resolver.modules.file(other).path
                links_in.add(GraphEdge(store, MODULE, path, 1, 1, imp.line, path, "imports",
                                       str(Status.RESOLVED)))


def _inherits(store: str, resolver: Resolver, target: GraphDef, file_id: int,
              links_in: Bounded, links_out: Bounded) -> None:
    for other, inh in resolver.graph.inherits_named(target.name):
        base = resolver.base_of(other, inh.parent)
        if base is not None and key(base) == key(target):
            child = resolver.context(other).type_named(inh.child)
            links_in.add(edge(store, child, resolver.modules.file(other).path, inh.line,
                               "inherits", Status.RESOLVED))
    for inh in resolver.context(file_id).edges.inherits:
        if inh.child == target.qualname:
            base = resolver.base_of(file_id, inh.parent)
            if base is not None:
                links_out.add(edge(store, base, target.path, inh.line, "inherits",
                                    Status.EXTRACTED if base.path == target.path
                                    else Status.RESOLVED))


# -- reachability -------------------------------------------------------------------------


def impact(store: str, resolver: Resolver, target: GraphDef, depth: int, all_edges: bool,
           out: Bounded, omitted: dict[str, int]) -> None:
    """Reverse reachability over calls, breadth first (fewest hops first)."""
    seen = {key(target)}
    frontier = [target]
    for level in range(1, depth + 1):
        following: list[GraphDef] = []
        for n, d in enumerate(frontier):
            if out.full and level > 1:  # what follows cannot be shown: say so, not walk it
                bump(omitted, "unwalked", len(frontier) - n)
                return
            for site in callers_of(resolver, d):
                if not site.res.settled and not all_edges:
                    bump(omitted, "ambiguous_callers")
                    continue
                caller = site.caller
                at = key(caller) if caller else (site.path, MODULE, 0)
                if at in seen:
                    continue
                seen.add(at)
                out.add(edge(store, caller, site.path, site.call.line, "calls",
                              site.res.status, len(site.res.targets), level))
                if caller is not None:
                    following.append(caller)
        if len(seen) > MAX_VISITED:
            bump(omitted, "unwalked", len(following))
            break
        frontier = following
