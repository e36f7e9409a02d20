"""`brief`: one call for an agent that fills a token budget with a search's best
locators, the callers and callees of its best hit, and its text (issues #22, #45).

The best locators of a search, the one-hop callers and callees of the definition the
best hit is in, and the best span's text, within a token budget that it fills: locators
first, then the graph rows that share the most words with the question (settled before
ambiguous), then the text, which gets at least half of what is left and loses its last
lines first. It says what it dropped: `omitted` counts rows, `trimmed` text lines.

The budget counts the text an agent reads (the MCP answer, the CLI's lines); `--json`
carries the same entries with their fields.
"""

from __future__ import annotations

from collections.abc import Sequence

from semlith.base.text import STOPWORDS, name_parts, path_words, stem, words
from semlith.errors import UnknownSymbol
from semlith.graph import answers
from semlith.store import Store
from semlith.types import Answer, Filters
from semlith.types.graph import Brief, GraphEdge

DEFAULT_BUDGET = 2_000  # tokens
LOCATORS = 5
NOTES = 160  # characters kept for the lines that say what was left out


def brief(opened: Sequence[tuple[str, Store]], question: str, answer: Answer, *,
          budget: int) -> Brief:
    if not 100 <= budget <= answers.MAX_BUDGET:
        raise ValueError(f"budget must be 100 to {answers.MAX_BUDGET:,} tokens, got {budget}")
    hits = tuple(answer.hits[:LOCATORS])
    if not hits:
        return Brief(question, (), "", (), (), "", 0, tuple(answer.notes))
    left = budget * answers.CHARS_PER_TOKEN - NOTES - len(question)
    left -= sum(len(h.locator) + len(h.symbol) + 2 for h in hits)
    best = hits[0]
    rows, unseen = _rows(opened, best.store, best.symbol, best.path)
    lines = best.text.splitlines()
    text_size = sum(len(line) + 1 for line in lines)
    # the rows may take what the text does not need, and half of what is left at least
    kept = _fit(_ranked(rows, question), max(left - text_size, left // 2), best.symbol)
    left -= sum(_row_size(e, best.symbol) for e in kept)
    shown: list[str] = []
    for line in lines:
        if len(line) + 1 > left:
            break
        left -= len(line) + 1
        shown.append(line)
    callers = tuple(e for e in kept if e.kind == "caller")  # the question's first
    callees = tuple(e for e in kept if e.kind != "caller")
    dropped = {part: n for part, n in (
        ("callers", unseen.get("callers", 0) + sum(1 for e in rows if e.kind == "caller")
         - len(callers)),
        ("callees", unseen.get("callees", 0) + sum(1 for e in rows if e.kind != "caller")
         - len(callees))) if n}
    return Brief(question, hits, best.symbol, tuple(_call(e) for e in callers),
                 tuple(_call(e) for e in callees), "\n".join(shown), len(lines) - len(shown),
                 tuple(answer.notes), dropped)


def _rows(opened: Sequence[tuple[str, Store]], label: str, symbol: str, path: str
          ) -> tuple[list[GraphEdge], dict[str, int]]:
    """The callers (kind `caller`) and callees of the definition `symbol` in `path`,
    and how many of each even the largest budget left out."""
    if not symbol or label.startswith("<"):
        return [], {}
    store = [(name, s) for name, s in opened if name == label]
    try:
        near = answers.neighbors(store, symbol, kinds=("calls",),
                                 filters=Filters(paths=(path,)), all_edges=False,
                                 budget=answers.MAX_BUDGET)
    except (UnknownSymbol, ValueError):
        return [], {}
    return [_as(e, "caller") for e in near.callers] + list(near.callees), near.omitted


def _as(e: GraphEdge, kind: str) -> GraphEdge:
    return GraphEdge(e.store, e.name, e.path, e.start_line, e.end_line, e.line, e.site, kind,
                     e.status, e.candidates, e.depth)


def _call(e: GraphEdge) -> GraphEdge:
    return _as(e, "calls")


def _words(text: str) -> frozenset[str]:
    return frozenset(stem(p.lower()) for w in words(text)
                     for p in name_parts(w) if len(p) >= 3 and p.lower() not in STOPWORDS)


def _ranked(rows: list[GraphEdge], question: str) -> list[GraphEdge]:
    """The rows the question names most first; then settled before ambiguous, callees
    before callers, in their order."""
    asked = _words(question)
    order = {id(e): n for n, e in enumerate(rows)}
    return sorted(rows, key=lambda e: (-len(path_words(e.name) & asked),
                                       e.status == "ambiguous", e.kind == "caller",
                                       order[id(e)]))


def _row_size(e: GraphEdge, symbol: str) -> int:
    """Characters of the row's line in the answer (`symbol calls X path:a-b`)."""
    where = e.evidence if e.kind == "caller" else (e.locator if e.path else "(ambiguous)")
    return len(symbol) + len(e.name) + len(where) + 24


def _fit(rows: list[GraphEdge], room: int, symbol: str) -> list[GraphEdge]:
    kept = []
    for e in rows:
        size = _row_size(e, symbol)
        if size <= room:
            room -= size
            kept.append(e)
    return kept
