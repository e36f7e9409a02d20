"""Equal scores by place, before any cut (issue #47): the keyword list in SQL, any engine
through `ties.settled`, the definitions of a name."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from semlith.store.catalog import Catalog, ChunkRow
from semlith.store.query import EVERYTHING, Selection, definitions, keyword_ids
from semlith.store.ties import by_place, in_place, settled
from semlith.types import ChunkPlace, Filters

COPIES = [f"lib/v{n:03d}/notice.md" for n in range(150)]


def _catalog(tmp_path: Path, paths: Sequence[str]) -> Catalog:
    """One chunk per path, all the same words (equal bm25), written in the given order,
    plus one chunk that scores above them."""
    cat = Catalog.open(tmp_path / "store.db", create=True)
    with cat.transaction() as db:
        for path in [*paths, "top.md"]:
            file_id = cat.put_file(db, path, size=1, mtime_ns=1)
            text = "walrus walrus walrus seal" if path == "top.md" else "walrus colony notice"
            cat.replace_chunks(db, file_id, [ChunkRow(1, 3, text),
                                             ChunkRow(4, 6, "unrelated words")])
            db.execute("INSERT INTO symbols(name, qualname, kind, file_id, start_line,"
                       " end_line) VALUES ('run', 'run', 'function', ?, 1, 3)", (file_id,))
    return cat


def _places(cat: Catalog, rows: list[tuple[int, float]]) -> list[str]:
    found = cat.places([i for i, _ in rows])
    return [found[i].path for i, _ in rows]


@pytest.mark.parametrize("sel", [EVERYTHING, Selection.of(Filters(paths=("*.md",)))],
                         ids=["unfiltered", "filtered"])
@pytest.mark.parametrize("k", [1, 10, 100, 140, 151, 200])
def test_keyword_ties_are_cut_by_place_whatever_the_insertion_order(
        tmp_path: Path, sel: Selection, k: int) -> None:
    answers = []
    for name, order in (("fresh", COPIES), ("reversed", COPIES[::-1])):
        (tmp_path / name).mkdir()
        cat = _catalog(tmp_path / name, order)
        rows = keyword_ids(cat, '"walrus" OR "seal"', k, sel)
        answers.append(_places(cat, rows))
        cat.close()
    assert answers[0] == answers[1] == ["top.md", *COPIES][:k]


def test_definitions_of_a_name_beyond_the_limit_are_the_first_by_place(
        tmp_path: Path) -> None:
    answers = []
    for name, order in (("fresh", COPIES), ("reversed", COPIES[::-1])):
        (tmp_path / name).mkdir()
        cat = _catalog(tmp_path / name, order)
        answers.append([d.path for d in definitions(cat, "RUN", limit=20)])
        cat.close()
    assert answers[0] == answers[1] == COPIES[:20]


class Engine:
    """An engine that breaks ties by id, as FTS5 and turbovec do, and counts its calls."""

    def __init__(self, entries: dict[int, float]) -> None:
        self.entries = sorted(entries.items(), key=lambda e: (-e[1], e[0]))
        self.asked: list[int] = []

    def __call__(self, n: int) -> list[tuple[int, float]]:
        self.asked.append(n)
        return self.entries[:n]


def _places_of(paths: dict[int, str]):  # type: ignore[no-untyped-def]
    def read(ids: Sequence[int]) -> dict[int, ChunkPlace]:
        return {i: ChunkPlace(i, paths[i], 1, 2, "") for i in ids if i in paths}
    return read


def test_settled_reads_deeper_only_while_the_run_at_the_cut_goes_on() -> None:
    # ids 1..40 tie at 0.5, their paths in the reverse order of their ids; 41 leads.
    scores = {i: 0.5 for i in range(1, 41)} | {41: 0.9}
    paths = {i: f"p{100 - i:03d}" for i in scores}
    engine = Engine(scores)
    got = settled(engine, 5, by_place(_places_of(paths)))
    assert [paths[i] for i, _ in got] == ["p059", "p060", "p061", "p062", "p063"]
    assert engine.asked == [6, 24, 96]  # k + 1, then four times deeper until the run ends
    engine = Engine({1: 0.9, 2: 0.8, 3: 0.7})
    assert settled(engine, 2, by_place(_places_of(paths))) == [(1, 0.9), (2, 0.8)]
    assert engine.asked == [3]  # no tie at the cut: one call


def test_in_place_orders_each_run_and_leaves_unique_scores_unread() -> None:
    read: list[int] = []
    paths = {1: "b", 2: "a", 3: "c", 4: "z"}

    def places(ids: Sequence[int]) -> dict[int, ChunkPlace]:
        read.extend(ids)
        return _places_of(paths)(ids)

    entries = [(4, 0.9), (1, 0.5), (2, 0.5), (3, 0.1)]
    assert in_place(entries, by_place(places)) == [(4, 0.9), (2, 0.5), (1, 0.5), (3, 0.1)]
    assert read == [1, 2]


def test_the_4bit_scan_keeps_every_copy_tied_at_its_cut(tmp_path: Path) -> None:
    """Copies of a chunk have one 4-bit code; turbovec orders them by insertion. The scan
    that feeds the exact rescoring keeps all of them, so the rescoring never sees only
    those a store happened to add first."""
    from semlith.store.vectors import LocalSpace
    from tests.conftest import unit_vectors

    space = LocalSpace(tmp_path, 32, budget_bytes=1 << 20, perf=True)
    others = unit_vectors(20, 32, seed=3)
    copy = others[0] * 0.5 + unit_vectors(1, 32, seed=4)[0]
    copy /= np.linalg.norm(copy)
    vectors = np.concatenate([others, np.repeat(copy[None, :], 40, axis=0)])
    space.add(np.arange(1, 61, dtype=np.uint64), vectors.astype(np.float32))
    space.durable()
    scores, ids = space._scan(copy.astype(np.float32), 10, None)
    assert set(range(21, 61)) <= set(ids.tolist())
    assert len(ids) >= 40 and scores[-1] == scores[9]  # the run goes on to its end
    space.close()
