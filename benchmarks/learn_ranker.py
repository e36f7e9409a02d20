"""A learned ranker over semlith's ranking signals, trained and scored offline
(issue #21: "learned fusion is allowed ... shipped only if it wins on the confirm half of
all three shapes"). Measured and rejected on 2026-12-01: docs/performance.md, "A learned
ranker". Kept so the experiment can be repeated with other features or models.

    python benchmarks/learn_ranker.py collect --shape repos --out repos.npz --cache DIR
    python benchmarks/learn_ranker.py evaluate corpora.npz repos.npz package.npz
    python benchmarks/learn_ranker.py train corpora.npz repos.npz package.npz

`collect` runs every development question of one shape through semlith (the stores of
`retrieval.py --cache`) and keeps, for each candidate the ranking's head holds, one row
of features and which of the question's targets it covers. `evaluate` scores the hand
ranking and the best order the candidates allow (every target first) with the retrieval
metric, offline. `train` fits LightGBM's lambdarank on the tune half of every shape
(boosted from the hand score, which it may only raise), and scores both halves
(`pip install lightgbm`; not a dependency of semlith).

The features: the hand signals run first (fusion, file-name words, priors, file
evidence) and what each did is a feature, so the trees correct the hand ranking rather
than replace it. Every feature is relative to the query's own candidates (ranks, shares
of the best) or a property of the chunk: nothing names a corpus, a language or a word.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import retrieval

from semlith.base.weights import Weights
from semlith.ranking import pipeline
from semlith.ranking.context import Context, Lists, Scores
from semlith.ranking.query import Query, QueryKind
from semlith.types import ChunkPlace

ABSENT = 60.0  # the rank of a chunk a list does not hold (beyond the head of 50)

NAMES: tuple[str, ...] = (
    "hand", "hand_rank", "fused", "dense_cos", "dense_gap", "dense_rank", "keyword",
    "keyword_rank", "symbol_rank", "path_gain", "prior", "file_bonus", "file_candidates",
    "file_rank", "chars", "lines", "definition", "identifier_query", "phrase_query",
    "query_words", "candidates", "whole",
)


def matrix(ctx: Context, steps: Sequence[Scores]) -> tuple[list[int], np.ndarray]:
    """(chunk ids, one row of NAMES per chunk) for the candidates that have a record.

    `steps` are the scores after each stage of the hand ranking (pipeline.stages):
    fusion, the files an issue names (none in the development set), file-name words,
    priors, file evidence."""
    fused, named, weighed, hand = steps[0], *steps[-3:]
    ids = sorted((cid for cid in hand if cid in ctx.records),
                 key=lambda c: (-hand[c], ctx.records[c].path, ctx.records[c].start_line))
    rows = np.zeros((len(ids), len(NAMES)), dtype=np.float64)
    if not ids:
        return ids, rows
    lists = ctx.lists
    dense = {cid: (n, s) for n, (cid, s) in enumerate(lists.dense)}
    keyword = {cid: (n, s) for n, (cid, s) in enumerate(lists.keyword)}
    symbol = {cid: n for n, cid in enumerate(lists.symbol)}
    top_cos = lists.dense[0][1] if lists.dense else 0.0
    top_kw = max((s for _, s in lists.keyword), default=0.0)
    top = {name: max(scores.values(), default=0.0) or 1.0
           for name, scores in (("fused", fused), ("named", named), ("weighed", weighed),
                                ("hand", hand))}
    w = ctx.weights
    path_unit = (w.path * top["fused"]) or 1.0
    file_unit = (w.files * top["weighed"]) or 1.0
    per_file: dict[str, int] = {}
    for cid in ids:
        p = ctx.records[cid].path
        per_file[p] = per_file.get(p, 0) + 1
    seen: dict[str, int] = {}
    kind = ctx.query.kind
    for n, cid in enumerate(ids):
        rec = ctx.records[cid]
        d = dense.get(cid)
        kw = keyword.get(cid)
        file_rank = seen.get(rec.path, 0)
        seen[rec.path] = file_rank + 1
        rows[n] = (
            hand[cid] / top["hand"],
            float(n),
            fused.get(cid, 0.0) / top["fused"],
            d[1] if d else 0.0,
            top_cos - d[1] if d else 1.0,
            float(d[0]) if d else ABSENT,
            max(kw[1], 0.0) / top_kw if kw and top_kw > 0 else 0.0,
            float(kw[0]) if kw else ABSENT,
            float(symbol[cid]) if cid in symbol else ABSENT,
            (named.get(cid, 0.0) - fused.get(cid, 0.0)) / path_unit,
            weighed.get(cid, 0.0) / named[cid] if named.get(cid) else 1.0,
            (hand[cid] - weighed.get(cid, 0.0)) / file_unit,
            float(per_file[rec.path]),
            float(file_rank),
            math.log1p(len(rec.text)),
            float(rec.end_line - rec.start_line + 1),
            1.0 if rec.symbol else 0.0,
            1.0 if kind is QueryKind.IDENTIFIER else 0.0,
            1.0 if kind is QueryKind.PHRASE else 0.0,
            float(len(ctx.query.words)),
            float(len(ids)),
            1.0 if lists.whole else 0.0,
        )
    return ids, rows


# --- collect ------------------------------------------------------------------------------

class Recorder:
    """Stands in for pipeline.rank while `collect` runs: it keeps each candidate's
    features and the targets it covers, then ranks as semlith does."""

    def __init__(self) -> None:
        self.rows: list[np.ndarray] = []
        self.cover: list[int] = []
        self.qid: list[int] = []
        self.loc: list[str] = []
        self.question: retrieval.Question | None = None
        self.number = 0
        self.prefix = ""

    def __call__(self, query: Query, lists: Lists, records: dict[int, ChunkPlace],
                 weights: Weights) -> list[tuple[int, float]]:
        head = pipeline.head(query, lists, records, weights)
        ids, rows = matrix(head, pipeline.stages(head))
        assert self.question is not None
        for cid, row in zip(ids, rows, strict=True):
            rec = records[cid]
            path = f"{self.prefix}/{rec.path}" if self.prefix else rec.path
            loc = (path, rec.start_line, rec.end_line)
            self.rows.append(row)
            self.qid.append(self.number)
            self.loc.append(f"{path}:{rec.start_line}-{rec.end_line}")
            self.cover.append(sum(1 << i for i, t in enumerate(self.question.targets)
                                  if retrieval.covers(loc, t)))
        return pipeline.rank(query, lists, records, weights)


def collect(args: argparse.Namespace) -> None:
    import semlith.search.searcher

    repos = args.repos.resolve() if args.repos else None
    corpora = retrieval.load_corpora(args.eval, (args.repos or args.corpora).resolve(),
                                     args.corpus, None, repos)
    split = retrieval.halves(json.loads((args.eval / "corpora.json").read_text()))
    package = args.shape == "package"
    prepare = retrieval.semlith_factory(args.workdir.resolve(), 10,
                                        args.cache.resolve() if args.cache else None,
                                        None, package, None, repos is not None)
    recorder = Recorder()
    setattr(semlith.search.searcher, "rank", recorder)  # noqa: B010 - the module's own name for it
    meta: dict[str, list[Any]] = {"corpus": [], "category": [], "targets": [], "ndcg": [],
                                  "tune": []}
    for corpus in corpora:
        questions, _ = retrieval.load_questions(args.eval, corpus)
        started = time.perf_counter()
        with prepare(corpus) as run:
            for q in questions:
                recorder.question, recorder.prefix = q, "" if package else corpus.root.strip("/")
                top = run(q.query)
                for key, value in (("corpus", corpus.name), ("category", q.category),
                                   ("targets", len(q.targets)),
                                   ("ndcg", retrieval.ndcg_at_k(top, q.targets, 10)),
                                   ("tune", split[corpus.name] == "tune")):
                    meta[key].append(value)
                recorder.number += 1
        print(f"  {corpus.name:18} {len(questions):3} questions "
              f"{time.perf_counter() - started:6.1f} s", flush=True)
    arrays = {"X": np.array(recorder.rows), "cover": np.array(recorder.cover),
              "qid": np.array(recorder.qid), "loc": np.array(recorder.loc),
              "names": np.array(NAMES), **{f"q_{k}": np.array(v) for k, v in meta.items()}}
    np.savez_compressed(args.out, **arrays)  # type: ignore[arg-type]
    print(f"wrote {args.out}: {len(recorder.rows)} candidates of {recorder.number} questions")


# --- offline scoring ----------------------------------------------------------------------

def ndcg_of(scores: np.ndarray, cover: np.ndarray, locs: Sequence[str] | np.ndarray,
            targets: int,
            k: int = 10) -> float:
    """retrieval.ndcg_at_k of the order semlith gives candidates of these scores: by
    score, then (path, first line); each file's best chunk before any file's second
    (select.order at per_file 1)."""
    paths = [loc.rsplit(":", 1)[0] for loc in locs]
    starts = [int(loc.rsplit(":", 1)[1].split("-")[0]) for loc in locs]
    ranked = sorted(range(len(locs)), key=lambda i: (-scores[i], paths[i], starts[i]))
    firsts: list[int] = []
    rest: list[int] = []
    seen: set[str] = set()
    for i in ranked:
        (rest if paths[i] in seen else firsts).append(i)
        seen.add(paths[i])
    credited, dcg = 0, 0.0
    for rank, i in enumerate((firsts + rest)[:k], start=1):
        fresh = int(cover[i]) & ~credited
        if fresh:
            credited |= fresh & -fresh  # each rank credits one target, the first it covers
            dcg += 1.0 / math.log2(rank + 1)
    return dcg / sum(1.0 / math.log2(r + 1) for r in range(1, min(k, targets) + 1))


def load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def score(data: dict[str, np.ndarray], scores: np.ndarray) -> dict[str, float]:
    """Mean NDCG@10 over corpora, for the tune half, the confirm half and all."""
    per: dict[str, list[float]] = {}
    qid = data["qid"]
    cuts = np.flatnonzero(np.diff(qid)) + 1
    found = {}
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(qid)], strict=True):
        q = int(qid[lo])
        found[q] = ndcg_of(scores[lo:hi], data["cover"][lo:hi], data["loc"][lo:hi],
                           int(data["q_targets"][q]))
    for q, corpus in enumerate(data["q_corpus"]):
        per.setdefault(str(corpus), []).append(found.get(q, 0.0))  # no candidate: 0
    tune = {str(c) for c, t in zip(data["q_corpus"], data["q_tune"], strict=True) if t}
    means = {c: float(np.mean(v)) for c, v in per.items()}
    return {"tune": float(np.mean([v for c, v in means.items() if c in tune])),
            "confirm": float(np.mean([v for c, v in means.items() if c not in tune])),
            "all": float(np.mean(list(means.values())))}


def column(data: dict[str, np.ndarray], name: str) -> np.ndarray:
    return data["X"][:, NAMES.index(name)]


def evaluate(args: argparse.Namespace) -> None:
    for path in args.data:
        data = load(path)
        hand = column(data, "hand")
        best = hand + 10.0 * (data["cover"] > 0)
        print(f"{path.name:16} hand {_halves(score(data, hand))}   "
              f"best order of the candidates {_halves(score(data, best))}")


def _halves(s: dict[str, float]) -> str:
    return f"{s['tune']:.4f} / {s['confirm']:.4f} / {s['all']:.4f}"


# --- train --------------------------------------------------------------------------------

# The features the trees read: what names the store's size or the question's length
# (candidates, query_words, chars, lines) let them tell corpora apart, and was left out.
TREE_FEATURES = ("hand", "hand_rank", "dense_cos", "dense_gap", "dense_rank", "keyword",
                 "keyword_rank", "symbol_rank", "path_gain", "prior", "file_bonus",
                 "file_rank", "identifier_query", "phrase_query")


def train(args: argparse.Namespace) -> None:
    import lightgbm

    sets = [load(path) for path in args.data]
    cols = [NAMES.index(n) for n in TREE_FEATURES]
    tune = [data["q_tune"][data["qid"]] for data in sets]
    rows = np.concatenate([d["X"][m][:, cols] for d, m in zip(sets, tune, strict=True)])
    labels = np.concatenate([(d["cover"][m] > 0).astype(int)
                             for d, m in zip(sets, tune, strict=True)])
    sizes = np.concatenate([np.unique(d["qid"][m], return_counts=True)[1]
                            for d, m in zip(sets, tune, strict=True)])
    init = np.concatenate([args.scale * column(d, "hand")[m]
                           for d, m in zip(sets, tune, strict=True)])
    params = {"objective": "lambdarank", "learning_rate": args.rate,
              "num_leaves": args.leaves, "min_data_in_leaf": args.min_leaf,
              "feature_fraction": 0.8, "bagging_fraction": 0.8, "bagging_freq": 1,
              "lambda_l2": 1.0, "num_threads": 2, "deterministic": True, "seed": 7,
              "verbose": -1, "lambdarank_truncation_level": 20,
              "monotone_constraints": [int(n == "hand") for n in TREE_FEATURES]}
    booster = lightgbm.train(params, lightgbm.Dataset(rows, labels, group=sizes,
                                                      init_score=init),
                             num_boost_round=args.rounds)
    for path, data in zip(args.data, sets, strict=True):
        hand = column(data, "hand")
        learned = booster.predict(data["X"][:, cols]) + args.scale * hand
        print(f"{path.name:16} hand {_halves(score(data, hand))}   "
              f"learned {_halves(score(data, learned))}")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="features of every question's candidates")
    c.add_argument("--shape", choices=["corpora", "repos", "package"], required=True)
    c.add_argument("--corpora", type=Path, default=Path("/work/corpora"))
    c.add_argument("--repos", type=Path, help="the repository trees (shape repos)")
    c.add_argument("--eval", type=Path, default=retrieval.EVAL_DIR)
    c.add_argument("--workdir", type=Path, default=Path("/tmp/semlith-retrieval"))
    c.add_argument("--cache", type=Path, help="as retrieval.py --cache")
    c.add_argument("--corpus", action="append", default=[])
    c.add_argument("--out", type=Path, required=True)
    e = sub.add_parser("evaluate", help="the hand ranking and the best order, offline")
    e.add_argument("data", type=Path, nargs="+")
    t = sub.add_parser("train", help="lambdarank on the tune halves, scored on both")
    t.add_argument("data", type=Path, nargs="+")
    t.add_argument("--scale", type=float, default=3.0, help="the hand score's weight")
    t.add_argument("--rounds", type=int, default=150)
    t.add_argument("--leaves", type=int, default=4)
    t.add_argument("--min-leaf", type=int, default=800)
    t.add_argument("--rate", type=float, default=0.03)
    args = p.parse_args(argv)
    if args.command == "collect" and (args.shape == "repos") != (args.repos is not None):
        p.error("--repos is the shape repos's folder, and only its")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    {"collect": collect, "evaluate": evaluate, "train": train}[args.command](args)


if __name__ == "__main__":
    main()
