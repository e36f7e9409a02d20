"""Targets anchored to the registry versions, fitted to the repository trees (issue #21).

The annotations' line spans were re-anchored to the registry versions the corpora come
from (shared/eval/README.md); the repository trees are at other revisions, where the
same definition sits on other lines, and where a file the annotations name may no
longer hold what it held (fmtlib's `core.h` is a 7-line stub in the tree: what it held
moved to `base.h`). Scoring the trees against targets that do not fit them measures the
annotations, not the ranking. With the registry corpora at hand, each question is fitted
to the tree by two rules, the inverse of the README's manual re-anchoring:

- a span target moves to where the tree's file holds the same lines (whitespace at the
  ends of a line aside), the occurrence nearest the old start. A span whose lines the
  tree holds only changed (the definition was edited between the two revisions) stays
  where it is: nothing says where its edited copy begins and ends, and moving it by a
  guess would score the guess. Of the 19 spans on the 23 trees six move (fastapi
  `APIRouter` and `BackgroundTasks`, requests `Session`, three of sinatra's `base.rb`);
  13 stay, in place or edited.
- a path target fits unless the tree's file kept almost none of the registry file's
  lines (fewer than `STUB_SHARE` of its distinct lines over 3 characters): a stub or a
  rewrite under the old name. On the 23 trees only fmtlib's `core.h` is under it
  (0.1 %); the next file is at 5.5 % (abseil's `optional.h`, an alias of
  `std::optional` in the tree, which the peer's annotations keep as well).

A question with a target that does not fit is excluded from the trees and counted, as a
question whose targets are missing is. Nothing here reads a question's words or a
corpus's name: the rules look at the two files only.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

STUB_SHARE = 0.02


@functools.lru_cache(maxsize=1024)
def _lines(path: Path) -> tuple[str, ...]:
    """A file's lines, stripped; read once however many targets name it."""
    return tuple(line.strip() for line in path.read_text(errors="replace").splitlines())


def fit_span(registry: Sequence[str], tree: Sequence[str], start: int, end: int
             ) -> tuple[int, int]:
    """Lines `start..end` (1-based, inclusive) of the registry file, moved to where the
    tree file holds the same lines (the occurrence nearest the old start); unchanged
    when the tree holds them there already, or nowhere as a whole."""
    block, tree = tuple(registry[start - 1:end]), tuple(tree)
    size = len(block)
    if not any(block) or tree[start - 1:end] == block:
        return start, end
    found = [i for i in range(len(tree) - size + 1)
             if tree[i] == block[0] and tree[i:i + size] == block]
    if not found:
        return start, end
    first = min(found, key=lambda i: (abs(i - (start - 1)), i))
    return first + 1, first + size


def kept_share(registry: Sequence[str], tree: Sequence[str]) -> float:
    """The share of the registry file's distinct lines (over 3 characters) in the tree's."""
    wanted = {line for line in registry if len(line) > 3}
    return len(wanted & set(tree)) / len(wanted) if wanted else 1.0


def fit_target(registry_file: Path, tree_file: Path, start: int | None, end: int | None
               ) -> tuple[int | None, int | None] | None:
    """A target's lines fitted to the tree's file: (start, end), (None, None) for a path
    target that fits, None for a target that does not fit the tree."""
    registry, tree = _lines(registry_file), _lines(tree_file)
    if start is None or end is None:
        return None if kept_share(registry, tree) < STUB_SHARE else (None, None)
    return fit_span(registry, tree, start, end)
