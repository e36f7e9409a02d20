"""The learned-ranker harness (benchmarks/learn_ranker.py) scores offline what the
retrieval benchmark scores online: the same order and the same metric."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import numpy as np

from semlith.base.weights import Weights
from semlith.ranking.context import Context, Lists
from semlith.ranking.query import analyse
from semlith.ranking.select import order
from semlith.types import ChunkRecord

_DIR = Path(__file__).resolve().parents[2] / "benchmarks"
_spec = importlib.util.spec_from_file_location("learn_ranker", _DIR / "learn_ranker.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = bench
_spec.loader.exec_module(bench)
retrieval = sys.modules["retrieval"]


def test_offline_ndcg_is_the_benchmark_metric_over_semliths_own_order() -> None:
    rng = random.Random(4)
    for _ in range(50):
        records = {i: ChunkRecord(i, f"src/f{rng.randrange(5)}.py", 0, 10 * i + 1,
                                  10 * i + 9, "function", "", "") for i in range(12)}
        scores = {i: float(rng.choice([0.1, 0.2, 0.5, 0.9])) for i in records}
        targets = [retrieval.Target(f"src/f{rng.randrange(5)}.py",
                                    *((None, None) if rng.random() < 0.5 else
                                      (10 * (n := rng.randrange(12)) + 1, 10 * n + 5)))
                   for _ in range(rng.randrange(1, 4))]
        ctx = Context(analyse("q"), Lists(), records, Weights())
        online = [(records[c].path, records[c].start_line, records[c].end_line)
                  for c, _ in order(scores, ctx)]
        ids = sorted(records)
        locs = [f"{records[i].path}:{records[i].start_line}-{records[i].end_line}" for i in ids]
        cover = np.array([sum(1 << n for n, t in enumerate(targets) if retrieval.covers(
            (records[i].path, records[i].start_line, records[i].end_line), t)) for i in ids])
        offline = bench.ndcg_of(np.array([scores[i] for i in ids]), cover, locs, len(targets))
        assert offline == retrieval.ndcg_at_k(online, targets, 10)


def test_every_candidate_gets_one_row_of_features_relative_to_its_query() -> None:
    from semlith.ranking.pipeline import stages

    records = {i: ChunkRecord(i, f"src/f{i % 4}.py", 0, i * 10 + 1, i * 10 + 9, "function",
                              f"f{i}", f"def f{i}(): return {i}\n") for i in range(6)}
    lists = Lists(dense=[(0, 0.8), (1, 0.7), (2, 0.4)], keyword=[(2, 9.0), (3, 3.0)])
    ctx = Context(analyse("where is f2 computed"), lists, records, Weights())
    ids, rows = bench.matrix(ctx, stages(ctx))
    assert sorted(ids) == [0, 1, 2, 3]
    col = {name: rows[:, n] for n, name in enumerate(bench.NAMES)}
    at = {cid: n for n, cid in enumerate(ids)}
    assert col["hand"].max() == 1.0
    assert col["hand_rank"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert col["dense_rank"][at[3]] == bench.ABSENT
    assert col["keyword"][at[2]] == 1.0
    assert col["dense_gap"][at[0]] == 0.0
