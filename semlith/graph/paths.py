"""`path`: the fewest-hop chain of calls from one definition to another, within a
budget (issues #22, #47).

A chain too long to show keeps its first and last hops and counts those between, and a
walk that reaches its limit says so instead of "no chain". A call of a class goes on
through the constructor it runs (issue #45).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from semlith.graph.calls import Key, callees_of, key
from semlith.graph.resolve import Resolver
from semlith.graph.status import Status
from semlith.graph.walk import MAX_VISITED, edge, size_of
from semlith.store.graph import GraphDef
from semlith.types.graph import GraphEdge


@dataclass(frozen=True, slots=True)
class Step:
    """One hop: the definition called, the call's line and file, how settled it is."""

    to: GraphDef
    line: int
    site: str
    status: Status
    candidates: int


@dataclass(frozen=True, slots=True)
class Chain:
    """What a search for a chain found: its steps (none: no chain), the ambiguous call
    a settled search refused to cross, and whether it stopped at its limit."""

    steps: list[Step]
    blocked: str = ""
    stopped: bool = False


def shortest_path(resolver: Resolver, source: GraphDef, target: GraphDef, all_edges: bool
                  ) -> Chain:
    """The fewest-hop chain of calls from `source` to `target`: settled edges only, or
    ambiguous ones too with `all_edges`. With settled edges only and no chain, it names
    the first ambiguous call that, crossed, would have connected them."""
    steps, stopped = _bfs(resolver, source, target, all_edges)
    if steps is not None or all_edges or stopped:
        return Chain(steps or [], stopped=stopped)
    guess, _ = _bfs(resolver, source, target, True)
    if not guess:
        return Chain([])
    hop = next(s for s in guess if s.status is Status.AMBIGUOUS)
    return Chain([], f"`{hop.to.name}` at {hop.site}:{hop.line} could mean "
                     f"{hop.candidates} definitions")


def _bfs(resolver: Resolver, source: GraphDef, target: GraphDef, all_edges: bool
         ) -> tuple[list[Step] | None, bool]:
    """The chain, or None; and whether the search stopped at MAX_VISITED."""
    # a class asked for is reached through its constructor, and starts from it
    goals = {key(target), key(resolver.runs(target))}
    starts = list({key(d): d for d in (source, resolver.runs(source))}.values())
    back: dict[Key, tuple[Key, Step] | None] = {key(d): None for d in starts}
    queue = deque(starts)
    while queue and len(back) < MAX_VISITED:
        d = queue.popleft()
        for call, res in callees_of(resolver, d):
            if not res.settled and not all_edges:
                continue
            for t in res.targets:
                if key(t) in back:
                    continue
                back[key(t)] = (key(d), Step(t, call.line, d.path, res.status,
                                             len(res.targets)))
                if key(t) in goals:
                    return _unwind(back, key(t)), False
                queue.append(t)
    return None, bool(queue)


def _unwind(back: dict[Key, tuple[Key, Step] | None], last: Key) -> list[Step]:
    steps: list[Step] = []
    link = back[last]
    while link is not None:
        previous, step = link
        steps.append(step)
        link = back[previous]
    return steps[::-1]


def path_edges(store: str, steps: Sequence[Step], budget: int) -> tuple[list[GraphEdge], int]:
    """The chain's hops as edges within `budget` characters: all of them, or its first
    and last ones (each keeps its number in `depth`) and how many between were left
    out."""
    hops = [edge(store, s.to, s.site, s.line, "calls", s.status, s.candidates, n)
            for n, s in enumerate(steps, 1)]
    sizes = [size_of(h) + len(h.evidence) + 16 for h in hops]  # the CLI's `evidence` too
    if sum(sizes) <= budget:
        return hops, 0
    head, used = 0, 0
    while head < len(hops) and used + sizes[head] <= budget // 2:
        used += sizes[head]
        head += 1
    tail = len(hops)
    while tail > head and used + sizes[tail - 1] <= budget:
        tail -= 1
        used += sizes[tail]
    return hops[:head] + hops[tail:], tail - head
