"""The values of the code graph's answers (issue #22): `neighbors`, `impact`, `path`
and `brief`. Value types like those of `semlith.types` (frozen, slotted, `as_json()` is
the wire form, `from_json` rebuilds it); kept apart so that module stays one concept."""

from __future__ import annotations

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


@dataclass(frozen=True, slots=True)
class Neighbors(Value):
    """`neighbors --json`: who calls `symbol` and what it calls; `omitted` counts what
    the budget or the collapsing left out (callers, callees, files, external...).
    `others`: how many other definitions the name has (chosen with path/ext/lang)."""

    symbol: GraphNode
    callers: tuple[GraphEdge, ...]
    callees: tuple[GraphEdge, ...]
    omitted: dict[str, int] = field(default_factory=dict)
    others: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"symbol": self.symbol.as_json(), "callers": [e.as_json() for e in self.callers],
                "callees": [e.as_json() for e in self.callees], "omitted": dict(self.omitted),
                "others": self.others}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Neighbors:
        return cls(from_json(GraphNode, data["symbol"]),
                   tuple(from_json(GraphEdge, e) for e in data["callers"]),
                   tuple(from_json(GraphEdge, e) for e in data["callees"]),
                   dict(data.get("omitted", {})), int(data.get("others", 0)))


@dataclass(frozen=True, slots=True)
class Impact(Value):
    """`impact --json`: what reaches `symbol` backwards, fewest hops first."""

    symbol: GraphNode
    entries: tuple[GraphEdge, ...]
    omitted: dict[str, int] = field(default_factory=dict)
    others: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"symbol": self.symbol.as_json(), "entries": [e.as_json() for e in self.entries],
                "omitted": dict(self.omitted), "others": self.others}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Impact:
        return cls(from_json(GraphNode, data["symbol"]),
                   tuple(from_json(GraphEdge, e) for e in data["entries"]),
                   dict(data.get("omitted", {})), int(data.get("others", 0)))


@dataclass(frozen=True, slots=True)
class GraphPath(Value):
    """`path`: the hops from `source` to `target` (empty: not connected). A path over
    ambiguous edges (`--all-edges`) is a `hypothesis`; `blocked` names the ambiguous
    call a settled walk refused to cross."""

    source: GraphNode
    target: GraphNode
    hops: tuple[GraphEdge, ...]
    hypothesis: bool = False
    blocked: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"source": self.source.as_json(), "target": self.target.as_json(),
                "hops": [e.as_json() for e in self.hops], "hypothesis": self.hypothesis,
                "blocked": self.blocked}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GraphPath:
        return cls(from_json(GraphNode, data["source"]), from_json(GraphNode, data["target"]),
                   tuple(from_json(GraphEdge, e) for e in data["hops"]),
                   bool(data.get("hypothesis", False)), str(data.get("blocked", "")))


@dataclass(frozen=True, slots=True)
class Brief(Value):
    """`brief`: one answer for an agent within a token budget — the best locators, the
    one-hop callers and callees of the definition the best hit is in, then the text of
    the best span, trimmed last (`trimmed` lines cut)."""

    question: str
    hits: tuple[Hit, ...]
    symbol: str
    callers: tuple[GraphEdge, ...]
    callees: tuple[GraphEdge, ...]
    text: str
    trimmed: int = 0
    notes: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"question": self.question,
                "hits": [{k: v for k, v in h.as_json().items() if k != "text"}
                         for h in self.hits],
                "symbol": self.symbol, "callers": [e.as_json() for e in self.callers],
                "callees": [e.as_json() for e in self.callees], "text": self.text,
                "trimmed": self.trimmed, "notes": list(self.notes)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Brief:
        return cls(str(data["question"]),
                   tuple(from_json(Hit, {**h, "text": ""}) for h in data["hits"]),
                   str(data.get("symbol", "")),
                   tuple(from_json(GraphEdge, e) for e in data.get("callers", [])),
                   tuple(from_json(GraphEdge, e) for e in data.get("callees", [])),
                   str(data.get("text", "")), int(data.get("trimmed", 0)),
                   tuple(data.get("notes", ())))
