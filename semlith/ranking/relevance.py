"""A relevance a person can read, from 0 to 1, beside the fused score (issue #23).

Fused scores (reciprocal rank fusion plus boosts) order hits well and mean nothing on
their own: 0.0656 says neither "good" nor "poor". A relevance does, in two steps:

- the store's best evidence: the cosine of its nearest chunk to the query, mapped so that
  the model's calibrated floor (`Recipe.floor`, below which a nearest chunk is no
  evidence of anything relevant) is 0.5 — from 0 to the floor onto 0 to 0.5, from the
  floor to 1 onto 0.5 to 1; a model without a floor maps a cosine onto itself;
- each hit's share of the store's top fused score, times that.

So the first hit of a store reads how close the store came to the question, and the
rest are relative to it: relevance falls with rank, and a hit half as strong as the
first reads half its relevance. A store that answered without a dense list (its chunks
not embedded yet) gives no relevance (None): the CLI then shows none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

NEUTRAL_FLOOR = 0.5  # where a model without a calibrated floor has it: the identity map


def calibrated(cosine: float, floor: float | None) -> float:
    """`cosine` on the 0-1 scale where the model's floor is 0.5."""
    f = NEUTRAL_FLOOR if floor is None else min(max(floor, 0.01), 0.99)
    c = min(max(cosine, 0.0), 1.0)
    return 0.5 * c / f if c < f else 0.5 + 0.5 * (c - f) / (1 - f)


def relevances(scores: Sequence[float], nearest: float | None, floor: float | None
               ) -> list[float | None]:
    """The relevance of each of a store's hits, best first, by fused `scores` and the
    cosine of the store's `nearest` chunk (None: no dense list)."""
    if nearest is None or not scores or scores[0] <= 0:
        return [None] * len(scores)
    return [round(standing, 2) for standing in standings(scores, nearest, floor)]


def standings(scores: Sequence[float], nearest: float | None, floor: float | None
              ) -> list[float]:
    """Each of a store's hits' standing beside other stores' hits: its relevance before
    rounding. A store without a dense list (its chunks not embedded yet) stands at the
    floor, 0.5: it answers, and a store that came closer to the question comes first."""
    if not scores or scores[0] <= 0:
        return [0.0] * len(scores)
    top = NEUTRAL_FLOOR if nearest is None else calibrated(nearest, floor)
    return [top * max(score, 0.0) / scores[0] for score in scores]


def merged(stores: Sequence[Sequence[tuple[float, T]]], k: int) -> list[T]:
    """The top `k` of several stores' (standing, hit) lists, by standing (issue #45).

    A fused score orders one store's hits and means nothing beside another store's:
    every store's first hit has about the same fused score however far the store is from
    the question (a sample's `get` came before starlette's answer). A standing is the
    store's best evidence (its nearest chunk's calibrated cosine) times the hit's share of
    the store's top score, so it orders a store's hits as their scores do and compares
    across stores. One store: its own order, unchanged.
    """
    if len(stores) == 1:
        return [hit for _, hit in stores[0][:k]]
    pooled = [(standing, n, i, hit) for n, hits in enumerate(stores)
              for i, (standing, hit) in enumerate(hits)]
    pooled.sort(key=lambda row: (-row[0], row[2], row[1]))
    return [hit for *_, hit in pooled[:k]]
