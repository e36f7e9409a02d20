"""`semlith brief` against search-then-read on the development questions (issue #22).

    python benchmarks/brief.py --corpora /work/corpora --cache /work/rcache
        [--corpus NAME ...] [--half tune|confirm] [--json OUT]

Each corpus's store is the one retrieval.py keeps under `--cache` (same key: corpus,
model, ingest fingerprint; brought up to date with embeddings from the cache, so a store
already current is not re-embedded). Per question:

- brief: `Library.brief(question)` at its default budget (2,000 tokens). It contains a
  target when one of its locators covers one (retrieval.py's `covers`), and "by its
  text" when the kept lines of the best span do. Its tokens are the CLI text answer's
  characters / 4. Its tokens to the first target: the whole answer when its text shows
  a target; when only a locator names one, the answer plus reading that locator (as
  below) from its first line to the target's.
- search-then-read: `semlith search` (k = 10, the CLI default) as the CLI prints it,
  then the agent reads the top 3 hits in rank order (`semlith read LOCATOR`, as printed):
  a hit that covers no target is read whole, the first one that covers a target is
  read from its first line to the target's first line. Tokens to the first target are
  the search output plus those reads; no target in the top 3 is a miss.

Medians are over the questions a method reaches a target in, and over the questions
both reach ("paired"). Rows: each half of the corpora (retrieval.halves()) and all.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from retrieval import (  # noqa: E402
    EVAL_DIR,
    Corpus,
    Locator,
    Question,
    Target,
    covers,
    halves,
    load_corpora,
    load_questions,
)

from semlith.cli import output  # noqa: E402
from semlith.cli.graph import brief_text  # noqa: E402
from semlith.types import Hit, Scope  # noqa: E402

SEARCH_K = 10  # `semlith search`'s default
READ_TOP = 3
SHARED_EVAL = Path("/work/shared/eval")  # EVAL_DIR is relative to a main checkout


def tokens(text: str) -> int:
    return len(text) // 4


def _loc(prefix: str, h: Hit) -> Locator:
    return (f"{prefix}/{h.path}" if prefix else h.path, h.start_line, h.end_line)


def _first(loc: Locator, targets: Sequence[Target]) -> Target | None:
    return next((t for t in targets if covers(loc, t)), None)


def _read_tokens(library: Any, scope: Scope, h: Hit, target: Target | None) -> int:
    """`semlith read` of a hit: whole, or from its first line to the target's first."""
    end = h.end_line if target is None or target.start_line is None else max(
        h.start_line, min(h.end_line, target.start_line))
    return tokens(output.passage(library.read(f"{h.path}:{h.start_line}-{end}", scope=scope)))


def search_then_read(library: Any, scope: Scope, prefix: str, q: Question) -> dict[str, Any]:
    found = library.search(q.query, k=SEARCH_K, scope=scope).hits
    spent = tokens(output.hits(found, multi_store=False))
    for rank, h in enumerate(found[:READ_TOP], start=1):
        target = _first(_loc(prefix, h), q.targets)
        spent += _read_tokens(library, scope, h, target)
        if target is not None:
            return {"hit": True, "rank": rank, "tokens": spent}
    return {"hit": False, "rank": None, "tokens": spent}


def brief_of(library: Any, scope: Scope, prefix: str, q: Question) -> dict[str, Any]:
    answer = library.brief(q.query, scope=scope)
    text = brief_text(answer) if answer.hits else ""
    locs = [_loc(prefix, h) for h in answer.hits]
    by_text = False
    if answer.hits and answer.text:
        best = answer.hits[0]
        kept = len(answer.text.splitlines())
        span = (locs[0][0], best.start_line, best.start_line + kept - 1)
        by_text = _first(span, q.targets) is not None
    to_target = tokens(text) if by_text else None
    for h, loc in zip(answer.hits, locs, strict=True):
        target = _first(loc, q.targets)
        if target is not None and to_target is None:  # named, not shown: read it
            to_target = tokens(text) + _read_tokens(library, scope, h, target)
    return {"hit": any(_first(loc, q.targets) for loc in locs), "by_text": by_text,
            "tokens": tokens(text), "to_target": to_target,
            "edges": len(answer.callers) + len(answer.callees)}


def open_cached(cache: Path) -> tuple[Any, str]:
    """The library and store-name suffix retrieval.py's `--cache` uses (semlith_factory)."""
    from vector_cache import cached_models

    from semlith.base.settings import Settings
    from semlith.embed.text import DEFAULT_MODEL
    from semlith.local import LocalLibrary

    settings = Settings.load()
    factory, suffix = cached_models(cache, DEFAULT_MODEL, settings)
    return LocalLibrary(settings, embedder_factory=factory), suffix


def run_corpus(library: Any, suffix: str, cache: Path, corpus: Corpus,
               questions: list[Question]) -> list[dict[str, Any]]:
    store = cache / "stores" / f"{corpus.name}{suffix}"
    started = time.perf_counter()
    report = library.index([str(corpus.folder / corpus.root)], store=str(store))
    print(f"  {corpus.name:14} {report.summary()} ({time.perf_counter() - started:.1f}s)",
          flush=True)
    scope, prefix = Scope((str(store),)), corpus.root.strip("/")
    rows = []
    for q in questions:
        rows.append({"corpus": corpus.name, "query": q.query, "category": q.category,
                     "brief": brief_of(library, scope, prefix, q),
                     "search": search_then_read(library, scope, prefix, q)})
    return rows


def _median(values: Sequence[int]) -> float | None:
    return statistics.median(values) if values else None


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    if not rows:
        return {"n": 0}
    both = [r for r in rows if r["brief"]["hit"] and r["search"]["hit"]]
    brief_tokens = [r["brief"]["tokens"] for r in rows]
    return {
        "n": len(rows),
        "brief_hit": sum(r["brief"]["hit"] for r in rows) / len(rows),
        "brief_text_hit": sum(r["brief"]["by_text"] for r in rows) / len(rows),
        "search_hit@3": sum(r["search"]["hit"] for r in rows) / len(rows),
        "brief_tokens_median": _median(brief_tokens),
        "brief_tokens_max": max(brief_tokens),
        "brief_over_budget": sum(t > 2000 for t in brief_tokens),
        "brief_to_target_median": _median(
            [r["brief"]["to_target"] for r in rows if r["brief"]["hit"]]),
        "search_to_target_median": _median(
            [r["search"]["tokens"] for r in rows if r["search"]["hit"]]),
        "paired_n": len(both),
        "paired_brief_median": _median([r["brief"]["to_target"] for r in both]),
        "paired_search_median": _median([r["search"]["tokens"] for r in both]),
    }


def _cell(key: str, v: Any) -> str:
    if v is None:
        return "-"
    if "hit" in key:
        return f"{100 * v:.1f}%"
    return f"{v:,.0f}" if isinstance(v, float) else f"{v:,}"


COLUMNS = ("n", "brief_hit", "brief_text_hit", "search_hit@3", "brief_tokens_median",
           "brief_tokens_max", "brief_over_budget", "brief_to_target_median",
           "search_to_target_median", "paired_n", "paired_brief_median",
           "paired_search_median")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--corpora", type=Path, default=Path("/work/corpora"))
    p.add_argument("--cache", type=Path, required=True, help="retrieval.py's --cache folder")
    p.add_argument("--eval", type=Path, default=EVAL_DIR if EVAL_DIR.is_dir() else SHARED_EVAL)
    p.add_argument("--corpus", action="append", default=[])
    p.add_argument("--half", choices=["tune", "confirm"])
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    corpora = load_corpora(args.eval, args.corpora.resolve(), args.corpus, args.half)
    split = halves(json.loads((args.eval / "corpora.json").read_text()))
    library, suffix = open_cached(args.cache.resolve())
    rows: list[dict[str, Any]] = []
    for corpus in corpora:
        questions, _ = load_questions(args.eval, corpus)
        rows += run_corpus(library, suffix, args.cache.resolve(), corpus, questions)
        if args.json:  # written as it goes: a long run stopped early keeps what it has
            args.json.write_text(json.dumps({"rows": rows}, indent=1) + "\n")
    table = {half: summarise([r for r in rows if split[r["corpus"]] == half])
             for half in ("tune", "confirm")}
    table["all"] = summarise(rows)
    print("| rows | " + " | ".join(COLUMNS) + " |")
    for name, s in table.items():
        print(f"| {name} | " + " | ".join(_cell(c, s.get(c)) for c in COLUMNS) + " |")
    if args.json:
        args.json.write_text(json.dumps({"table": table, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
