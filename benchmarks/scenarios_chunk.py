"""Chunking throughput per language, and on a large real file (no model)."""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
import shutil
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import Context, Result, scenario, timed

from semlith.base.languages import language_of
from semlith.ingest.chunk import chunk_file
from semlith.types import Scope

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "languages"
LARGE = Path(sysconfig.get_paths()["stdlib"]) / "_pydecimal.py"  # ~230 KB of real Python
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.hostile_files


def _throughput(text: str, path: str, seconds: float) -> dict[str, float]:
    language = language_of(path)
    runs, chunks, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds or runs < 3:
        result = chunk_file(text, language)
        chunks = len(result.chunks)
        runs += 1
    elapsed = time.perf_counter() - start
    size = len(text.encode())
    return {"files_per_s": round(runs / elapsed, 1),
            "mb_per_s": round(runs * size / elapsed / 1e6, 2),
            "chunks_per_s": round(runs * chunks / elapsed), "chunks": chunks,
            "strategy": result.strategy}  # type: ignore[dict-item]


@scenario("chunk", sizes=[1], fast_sizes=[1])
def chunk(ctx: Context, sizes: list[int]) -> Result:
    """Chunking throughput per language (fixtures) and on a large real Python file."""
    seconds = 0.2 if ctx.fast else 1.0
    metrics: dict[str, float | int | str] = {}
    for path in sorted(FIXTURES.glob("*")):
        lang = language_of(path)
        if lang is None:
            continue
        one = _throughput(path.read_text(), path.name, seconds)
        metrics[f"{lang.name}_files_per_s"] = one["files_per_s"]
        metrics[f"{lang.name}_mb_per_s"] = one["mb_per_s"]
    if LARGE.exists():
        large = _throughput(LARGE.read_text(), LARGE.name, seconds * 3)
        metrics.update({f"large_{k}": v for k, v in large.items()})
        text, lang = LARGE.read_text(), language_of(LARGE.name)
        metrics.update({f"large_{k}": v for k, v in
                        timed(lambda: chunk_file(text, lang), runs=10 if ctx.fast else 30,
                              warmup=2).items()})
        ctx.log(f"chunk {LARGE.name} ({LARGE.stat().st_size / 1e3:.0f} KB): {large}")
    return {1: metrics}


# -- hostile files (issue #26) -----------------------------------------------------------

HOSTILE_SECONDS = 30.0  # a run still going after this is reported as stuck and killed
_HOSTILE = {"generated_py": ("gen/handlers.py", "generated"),
            "unmarked_py": ("gen/handlers.py", "unmarked"),
            "minified_js": ("static/app.min.js", "minified"),
            "inline_secrets_sh": ("deploy/restore.sh", "inline")}  # issue #47


def _hostile_text(kind: str) -> str:
    from tests.hostile_files import generated_python, inline_secrets, minified_bundle

    if kind == "minified":
        return minified_bundle()
    if kind == "inline":
        return inline_secrets()
    return generated_python(marker=kind == "generated")


def _hostile_child(stage: str, name: str, kind: str, folder: str, queue: Any) -> None:
    """One hostile file, chunked alone or indexed in a tree beside an ordinary file."""
    text = _hostile_text(kind)
    if stage == "chunk":
        start = time.perf_counter()
        result = chunk_file(text, language_of(name))
        queue.put({"s": round(time.perf_counter() - start, 2), "strategy": result.strategy,
                   "chunks": len(result.chunks)})
        return
    root = Path(folder) / "tree"
    (root / name).parent.mkdir(parents=True)
    (root / name).write_text(text)
    (root / "ok.py").write_text("def fine():\n    return 1\n")
    start = time.perf_counter()
    library = _filler_library(folder)
    report = library.index([str(root)])
    seconds = time.perf_counter() - start
    withheld = library.stats(scope=Scope(stores=(str(root / ".semlith"),)))[0].withheld
    library.close()
    redacted = (withheld or {}).get("redacted_strings", 0)
    queue.put({"s": round(seconds, 2), "indexed": report.indexed, "skipped": report.skipped,
               "chunks": report.chunks, "redacted": redacted})


def _bounded(stage: str, name: str, kind: str, folder: Path) -> dict[str, Any]:
    """`_hostile_child` in a fresh process, killed after HOSTILE_SECONDS."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    child = ctx.Process(target=_hostile_child, args=(stage, name, kind, str(folder), queue))
    child.start()
    child.join(HOSTILE_SECONDS)
    if child.is_alive():
        child.kill()
        child.join()
        return {"s": f"stuck (killed after {HOSTILE_SECONDS:.0f} s)"}
    return dict(queue.get(timeout=5))


def _filler_settings(folder: str) -> Any:
    from semlith.base.settings import Settings

    return Settings.load(env={**os.environ, "SEMLITH_HOME": str(Path(folder) / "home")})


def _filler_library(folder: str) -> Any:
    from scenarios_index import _Filler

    from semlith.local import LocalLibrary

    return LocalLibrary(_filler_settings(folder), embedder_factory=_Filler())


def _canary_rows(folder: Path) -> dict[str, int]:
    """The canary corpus (tests/canaries.py) indexed, then the stored text, every line
    `grep` finds and every `read` looked through for its credentials: a row per position
    of issue #47's inline assignments (how many of its shapes leaked there), the totals,
    and the strings redacted in ordinary shell of the same shape (0 is right)."""
    from semlith.store import Store
    from tests.canaries import NEGATIVES, canaries, leaks, write_canaries
    from tests.canary_positions import ORDINARY_INLINE, POSITIONS, SHAPES
    from tests.secret_fixtures import everything_stored

    corpus, root = canaries(), folder / "canaries"
    write_canaries(root, corpus, NEGATIVES)
    library, scope = _filler_library(str(folder)), Scope(stores=(str(root / ".semlith"),))
    try:
        library.index([str(root)])
        served = [json.dumps(library.grep(".", regex=True, limit=10_000, scope=scope).as_json())]
        served += ["\n".join(library.read(c.path, scope=scope, max_lines=10_000).lines)
                   for c in corpus if c.kind]
    finally:
        library.close()
    store = Store.open(root / ".semlith", settings=_filler_settings(str(folder)))
    try:
        served.append(everything_stored(store))
        redacted = {f.path: f.redacted for f in store.catalog.files()}
    finally:
        store.close()
    leaked = set(leaks("\n".join(served), corpus))
    rows = {f"inline_{p.slug.replace('-', '_')}_leaked":
            sum(f"{shape.key} {p.slug}" in leaked for shape in SHAPES) for p in POSITIONS}
    return {"canaries": len(corpus), "canaries_leaked": len(leaked), **rows,
            "ordinary_inline_redacted": sum(redacted[rel] for rel in ORDINARY_INLINE)}


@scenario("hostile", sizes=[1], fast_sizes=[1])
def hostile(ctx: Context, sizes: list[int]) -> Result:
    """Issue #26's hostile files chunked and indexed (killed after 30 s); ordinary index p50/p95.

    The files: a 2.4 MB generated module of 40,000 functions (with and without its
    `@generated` header), a 3.9 MB one-line minified bundle, and a 3 MB script that sets
    two secrets in front of each of its 30,000 commands (issue #47). Then the canary
    corpus: what leaked, per position of an inline assignment. No model: a filler embedder.
    """
    metrics: dict[str, Any] = {}
    for label, (name, kind) in _HOSTILE.items():
        for stage in ("index",) if ctx.fast else ("chunk", "index"):
            folder = Path(tempfile.mkdtemp(dir=ctx.workdir))
            for key, value in _bounded(stage, name, kind, folder).items():
                metrics[f"{label}_{stage}_{key}"] = value
            ctx.log(f"hostile {label} {stage}: "
                    f"{ {k: v for k, v in metrics.items() if k.startswith(label + '_' + stage)} }")
    metrics.update(_canary_rows(Path(tempfile.mkdtemp(dir=ctx.workdir))))
    ctx.log(f"hostile canaries: {metrics['canaries_leaked']} of {metrics['canaries']} leaked, "
            f"{metrics['ordinary_inline_redacted']} redacted in ordinary inline shell")
    runs = itertools.count()

    def ordinary() -> None:  # a fresh store each time: 60 modules and _pydecimal.py
        from scenarios_index import write_corpus

        root = ctx.workdir / f"ordinary-{next(runs)}"
        write_corpus(root, 60)
        shutil.copy(LARGE, root / LARGE.name)
        _filler_library(str(root.parent / f"{root.name}-h")).index([str(root)])

    metrics.update({f"ordinary_index_{k}": v for k, v in
                    timed(ordinary, runs=3 if ctx.fast else 9, warmup=1).items()})
    from scenarios_edges import hostile_answers, hostile_graphs  # issue #47: bounded answers

    metrics.update(hostile_graphs(ctx))
    metrics.update(hostile_answers(ctx))
    ctx.log(f"hostile ordinary index: {metrics['ordinary_index_p50_ms']} ms p50")
    return {1: metrics}
