"""The values of the code graph's answers (issue #22): `neighbors`, `impact`, `path`
and `brief`. Value types like those of `semlith.types` (frozen, slotted, `as_json()` is
the wire form, `from_json` rebuilds it); kept apart so that module stays one concept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from semlith.types import Hit, Located, Value, from_json


@dataclass(frozen=True, slots=True)
class GraphNode(Located):
    """A definition a graph answer is about."""

    store: str
    name: str  # qualified: `Session.send`
    path: str
    start_line: int
    end_line: int
    kind: str


@dataclass(frozen=True, slots=True)
class GraphEdge(Located):
    """One edge of a graph answer: the definition at the other end (`name`, `path`,
    `start_line`, `end_line`; empty for an ambiguous edge shown collapsed), the call
    site or evidence `site:line`, the edge's kind and status, and for an ambiguous edge
    how many definitions it could mean. `depth` is the hop count (impact, path)."""

    store: str
    name: str
    path: str
    start_line: int
    end_line: int
    line: int
    site: str
    kind: str  # calls, imports, inherits, contains
    status: str  # extracted, resolved, ambiguous
    candidates: int = 1
    depth: int = 1

    @property
    def evidence(self) -> str:
        return f"{self.site}:{self.line}" if self.line else self.site


def _edges(data: dict[str, Any], name: str) -> tuple[GraphEdge, ...]:
    return tuple(from_json(GraphEdge, e) for e in data.get(name, ()))


def _nodes(data: dict[str, Any], name: str) -> tuple[GraphNode, ...]:
    return tuple(from_json(GraphNode, n) for n in data.get(name, ()))


def counted(shown: int, omitted: dict[str, int], part: str, unsure: Sequence[str]) -> str:
    """How many of `part` there are, as a reader should take it: the entries shown and
    those the budget left out; "≥ n" when some may be missing (`unsure`: the counts of
    `omitted` that say so, such as ambiguous call sites or files whose edges could not
    be read)."""
    total = shown + omitted.get(part, 0)
    why = [_UNSURE.get(u, "{} " + u).format(omitted[u], "" if omitted[u] == 1 else "s")
           for u in unsure if omitted.get(u)]
    return f"≥ {total}; {', '.join(why)}" if why else str(total)


_UNSURE = {"ambiguous_callers": "{} ambiguous", "unread_files": "{} file{} unread",
           "unwalked": "{} not followed", "value_binding": "calls through it uncounted"}


@dataclass(frozen=True, slots=True)
class Neighbors(Value):
    """`neighbors --json`: who calls `symbol` and what it calls (calls only; a call of a
    class is a call of its constructor), then its other edges apart: `links_in` point
    at it (subclasses, its container, importers), `links_out` from it (bases, members).
    `omitted` counts what is not shown: per list what the budget left out and `files`
    they were in; `ambiguous_callers` (calls that may mean it, unsettled; with
    `all_edges` they are shown), `unread_files` (files of its language whose edges
    could not be read: callers there are unknown), `outside_callees` (its calls into
    builtins, the standard library, dependencies), `value_binding` (1: a Python name
    bound by assignment; a call through it calls its value and is not counted).
    `others`: how many other definitions the name has; `alternatives` the first of
    them, concrete ones first."""

    symbol: GraphNode
    callers: tuple[GraphEdge, ...]
    callees: tuple[GraphEdge, ...]
    omitted: dict[str, int] = field(default_factory=dict)
    others: int = 0
    links_in: tuple[GraphEdge, ...] = ()
    links_out: tuple[GraphEdge, ...] = ()
    alternatives: tuple[GraphNode, ...] = ()

    @property
    def callers_counted(self) -> str:
        """`9`, or `≥ 9; 2 ambiguous` when some callers may be missing."""
        return counted(len(self.callers), self.omitted, "callers",
                       ("ambiguous_callers", "unread_files", "value_binding"))

    def as_json(self) -> dict[str, Any]:
        return {"symbol": self.symbol.as_json(), "callers": [e.as_json() for e in self.callers],
                "callees": [e.as_json() for e in self.callees], "omitted": dict(self.omitted),
                "others": self.others, "links_in": [e.as_json() for e in self.links_in],
                "links_out": [e.as_json() for e in self.links_out],
                "alternatives": [n.as_json() for n in self.alternatives]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Neighbors:
        return cls(from_json(GraphNode, data["symbol"]), _edges(data, "callers"),
                   _edges(data, "callees"), dict(data.get("omitted", {})),
                   int(data.get("others", 0)), _edges(data, "links_in"),
                   _edges(data, "links_out"), _nodes(data, "alternatives"))


@dataclass(frozen=True, slots=True)
class Impact(Value):
    """`impact --json`: what reaches `symbol` backwards, fewest hops first; `omitted`
    as `Neighbors`', with `unwalked` (callers not followed further: the budget or the
    walk's limit)."""

    symbol: GraphNode
    entries: tuple[GraphEdge, ...]
    omitted: dict[str, int] = field(default_factory=dict)
    others: int = 0
    alternatives: tuple[GraphNode, ...] = ()

    @property
    def entries_counted(self) -> str:
        return counted(len(self.entries), self.omitted, "entries",
                       ("ambiguous_callers", "unread_files", "unwalked", "value_binding"))

    def as_json(self) -> dict[str, Any]:
        return {"symbol": self.symbol.as_json(), "entries": [e.as_json() for e in self.entries],
                "omitted": dict(self.omitted), "others": self.others,
                "alternatives": [n.as_json() for n in self.alternatives]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Impact:
        return cls(from_json(GraphNode, data["symbol"]), _edges(data, "entries"),
                   dict(data.get("omitted", {})), int(data.get("others", 0)),
                   _nodes(data, "alternatives"))


@dataclass(frozen=True, slots=True)
class GraphPath(Value):
    """`path`: the hops from `source` to `target` (none: not connected). A path over
    ambiguous edges (`--all-edges`) is a `hypothesis`; `blocked` names the ambiguous
    call a settled walk refused to cross. `length` is the chain's hops; when it does
    not fit the budget `hops` holds its first and last ones (each hop's `depth` is its
    number) and `omitted["hops"]` how many between were left out. `stopped`: the walk
    reached its limit of definitions before it found a chain, so "none" is not known."""

    source: GraphNode
    target: GraphNode
    hops: tuple[GraphEdge, ...]
    hypothesis: bool = False
    blocked: str = ""
    length: int = 0
    omitted: dict[str, int] = field(default_factory=dict)
    stopped: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"source": self.source.as_json(), "target": self.target.as_json(),
                "hops": [e.as_json() for e in self.hops], "hypothesis": self.hypothesis,
                "blocked": self.blocked, "length": self.length, "omitted": dict(self.omitted),
                "stopped": self.stopped}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GraphPath:
        return cls(from_json(GraphNode, data["source"]), from_json(GraphNode, data["target"]),
                   _edges(data, "hops"), bool(data.get("hypothesis", False)),
                   str(data.get("blocked", "")), int(data.get("length", len(data["hops"]))),
                   dict(data.get("omitted", {})), bool(data.get("stopped", False)))


@dataclass(frozen=True, slots=True)
class Brief(Value):
    """`brief`: one answer for an agent within a token budget — the best locators, the
    one-hop callers and callees of the definition the best hit is in, then the text of
    the best span, trimmed last (`trimmed` lines cut); `omitted` counts the callers and
    callees the budget left out."""

    question: str
    hits: tuple[Hit, ...]
    symbol: str
    callers: tuple[GraphEdge, ...]
    callees: tuple[GraphEdge, ...]
    text: str
    trimmed: int = 0
    notes: tuple[str, ...] = ()
    omitted: dict[str, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"question": self.question,
                "hits": [{k: v for k, v in h.as_json().items() if k != "text"}
                         for h in self.hits],
                "symbol": self.symbol, "callers": [e.as_json() for e in self.callers],
                "callees": [e.as_json() for e in self.callees], "text": self.text,
                "trimmed": self.trimmed, "notes": list(self.notes),
                "omitted": dict(self.omitted)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Brief:
        return cls(str(data["question"]),
                   tuple(from_json(Hit, {**h, "text": ""}) for h in data["hits"]),
                   str(data.get("symbol", "")),
                   _edges(data, "callers"), _edges(data, "callees"),
                   str(data.get("text", "")), int(data.get("trimmed", 0)),
                   tuple(data.get("notes", ())), dict(data.get("omitted", {})))
