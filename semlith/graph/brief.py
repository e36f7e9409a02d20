"""`brief`: one call for an agent (issue #22) — the best locators of a search, the
one-hop callers and callees of the definition the best hit is in, and the best span's
text, within a token budget: locators first, graph rows next, text trimmed last."""

from __future__ import annotations

import json
from collections.abc import Sequence

from semlith.errors import UnknownSymbol
from semlith.graph import answers
from semlith.store import Store
from semlith.types import Answer, Filters
from semlith.types.graph import Brief, GraphEdge

DEFAULT_BUDGET = 2_000  # tokens
LOCATORS = 5


def _size(value: object) -> int:
    return len(json.dumps(value)) + 2


def brief(opened: Sequence[tuple[str, Store]], question: str, answer: Answer, *,
          budget: int) -> Brief:
    if not 100 <= budget <= answers.MAX_BUDGET:
        raise ValueError(f"budget must be 100 to {answers.MAX_BUDGET:,} tokens, got {budget}")
    left = budget * answers.CHARS_PER_TOKEN
    hits = tuple(answer.hits[:LOCATORS])
    if not hits:
        return Brief(question, (), "", (), (), "", 0, tuple(answer.notes))
    left -= sum(_size(h.locator) + len(h.symbol) for h in hits)
    best = hits[0]
    callers: list[GraphEdge] = []
    callees: list[GraphEdge] = []
    if best.symbol and not best.store.startswith("<"):
        store = [(label, s) for label, s in opened if label == best.store]
        try:
            near = answers.neighbors(store, best.symbol, kinds=("calls",),
                                     filters=Filters(paths=(best.path,)), all_edges=False,
                                     budget=max(100, left // 3 // answers.CHARS_PER_TOKEN))
        except (UnknownSymbol, ValueError):
            near = None
        if near is not None:
            for side, out in ((near.callers, callers), (near.callees, callees)):
                for edge in side:
                    if _size(edge.as_json()) // 2 > left:
                        break
                    left -= _size(edge.as_json()) // 2  # the text form is about half
                    out.append(edge)
    lines = best.text.splitlines()
    kept: list[str] = []
    for line in lines:
        if len(line) + 1 > left:
            break
        left -= len(line) + 1
        kept.append(line)
    return Brief(question, hits, best.symbol, tuple(callers), tuple(callees),
                 "\n".join(kept), len(lines) - len(kept), tuple(answer.notes))
