"""Any repository, any size (issue #43): memory and time to answers on large trees.

- `tables`: a ~400 KB generated data table (tests/hostile_files.py, shaped like http4s's
  MimeDB.scala) in each of the 20 chunked languages, indexed alone in a fresh process:
  peak RSS, seconds and how it was cut. The real model (with --fast: a stand-in).
- `scale`: a synthetic tree of N chunks (50,000 files of 20 functions for 1,000,000),
  indexed by the real indexer in a fresh process with a fast stand-in model: seconds
  until every file answers a keyword search (the read pass), until every chunk has its
  vector (full quality), chunks/s per pass, peak RSS, the store's size on disk, and warm
  search p50/p95 at that size.
- `repo`: the same figures for a real repository with the real model:
  `SEMLITH_BENCH_REPO=DIR` (docs/performance.md names the tree and commit measured).

Peak RSS is the index process's own (`VmHWM`; harness.peak_rss_mb), read when the run ends.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import zlib
from pathlib import Path

import numpy as np
from harness import Context, Metrics, Result, isolated, peak_rss_mb, scenario, timed

from semlith.base.settings import Settings
from semlith.local import LocalLibrary
from semlith.types import Progress, Scope

sys.path.append(str(Path(__file__).resolve().parents[1]))  # tests/, after semlith
from tests.hostile_files import EXTENSIONS, TABLE_LANGUAGES, data_table

FUNCTIONS_PER_FILE = 20
WORDS = ("parse", "render", "schedule", "compress", "resize", "send", "retry", "verify",
         "cache", "queue", "socket", "token", "buffer", "encode", "stream", "index")


class StandIn:
    """A fast deterministic model: a seeded unit vector per text (not a meaning)."""

    name, dim = "all-MiniLM-L6-v2-int8", 384

    def __call__(self, name: str) -> StandIn:
        return self

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        rows = [np.random.default_rng(zlib.crc32(t.encode())).standard_normal(self.dim)
                for t in texts]
        out = np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed_documents([text])[0]
        return vector


def _home(workdir: Path, tag: str) -> dict[str, str]:
    return {**os.environ, "SEMLITH_HOME": str(workdir / f"home-{tag}")}


def _env(home: str) -> dict[str, str]:
    """A fresh home (an empty vector cache: every chunk is embedded) whose models are
    built once for all runs (`SEMLITH_MODELS` beside it)."""
    models = os.environ.get("SEMLITH_MODELS") or str(Path(home).parent / "models")
    return {**os.environ, "SEMLITH_HOME": home, "SEMLITH_MODELS": models}


def _index(root: str, home: str, stand_in: bool) -> Metrics:
    """Index `root` from scratch in this (fresh) process, timing its passes."""
    settings = Settings.load(env=_env(home))
    lib = LocalLibrary(settings, embedder_factory=StandIn() if stand_in else None)
    marks: dict[str, float] = {}
    start = time.perf_counter()

    def record(p: Progress) -> None:
        now = time.perf_counter() - start
        marks.setdefault(f"first_{p.phase}", now)
        marks[f"last_{p.phase}"] = now

    report = lib.index([root], on_progress=record)
    total = time.perf_counter() - start
    peak = peak_rss_mb()
    read_s = marks.get("last_read", total)
    embed_s = total - marks.get("first_embed", total)
    folder = Path(root) / ".semlith"
    disk = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    lib.close()
    return {"files": report.indexed, "chunks": report.chunks,
            "keyword_all_s": round(read_s, 1), "full_s": round(total, 1),
            "chunks_per_s": round(report.chunks / total, 1),
            "read_chunks_per_s": round(report.chunks / max(read_s, 1e-9), 1),
            "embed_chunks_per_s": round(report.chunks / max(embed_s, 1e-9), 1),
            "peak_rss_mb": round(peak), "store_mb": round(disk / (1 << 20))}


def _searches(root: str, home: str, stand_in: bool, marker: str) -> Metrics:
    """Warm search p50/p95 over the store, and that the last file answers by keyword."""
    settings = Settings.load(env=_env(home))
    lib = LocalLibrary(settings, embedder_factory=StandIn() if stand_in else None)
    scope = Scope(stores=(str(Path(root) / ".semlith"),))
    found = lib.grep(marker, files_only=True, scope=scope).files
    questions = [f"how does the {a} {b} work" for a in WORDS[:6] for b in WORDS[6:12]]
    at = iter(questions * 10)
    lat = timed(lambda: lib.search(next(at), scope=scope), runs=len(questions) * 2)
    lib.close()
    return {"last_file_found": int(bool(found)), "query_p50_ms": lat["p50_ms"],
            "query_p95_ms": lat["p95_ms"]}


def write_tree(root: Path, chunks: int) -> str:
    """A seeded tree of `chunks` distinct functions, 20 a file in folders of 100 files;
    returns a word only the last file (in read order) holds."""
    files = max(1, chunks // FUNCTIONS_PER_FILE)
    done = root / ".complete"
    marker = f"lastfilemarker{files - 1}"
    if done.exists():
        return marker
    shutil.rmtree(root, ignore_errors=True)
    for n in range(files):
        folder = root / f"pkg{n // 100:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        body = []
        for f in range(FUNCTIONS_PER_FILE):
            a, b = WORDS[(n + f) % len(WORDS)], WORDS[(n * 3 + f * 7) % len(WORDS)]
            # ~550 characters: one chunk each (smaller neighbours are packed together)
            body += [f"def {a}_{b}_{n}_{f}(items, limit={f + 1}, retries=3):",
                     f'    """{a.title()} the {b} of batch {n}, step {f}, in order."""',
                     "    done, failed = [], []",
                     "    for item in items[:limit]:",
                     "        for attempt in range(retries):",
                     "            try:",
                     f"                done.append(('{a}', '{b}', item, {n * f}))",
                     "                break",
                     "            except ValueError as exc:",
                     "                failed.append((item, attempt, str(exc)))",
                     f"    log_{b}(len(done), len(failed), '{a}-{n}-{f}')",
                     "    return done, failed", "", ""]
        if n == files - 1:
            body.append(f"{marker.upper()} = 1  # {marker}")
        (folder / f"mod_{n:06d}.py").write_text("\n".join(body))
    done.write_text("ok\n")
    return marker


def _measure_tree(ctx: Context, root: Path, marker: str, tag: str, stand_in: bool,
                  search: bool = True) -> Metrics:
    shutil.rmtree(root / ".semlith", ignore_errors=True)
    home = _home(ctx.workdir, tag)["SEMLITH_HOME"]
    shutil.rmtree(home, ignore_errors=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else -1.0
    out = isolated(_index, str(root), home, stand_in)
    if search:
        out.update(isolated(_searches, str(root), home, stand_in, marker))
    out["load_before"] = round(load, 2)
    return out


@scenario("scale", sizes=[1_000_000], fast_sizes=[2_000])
def scale(ctx: Context, sizes: list[int]) -> Result:
    """A synthetic tree of N chunks, stand-in model: keyword-all / full seconds, RSS, size."""
    out: Result = {}
    for n in sizes:
        root = ctx.workdir / f"tree-{n}"
        marker = write_tree(root, n)
        out[n] = _measure_tree(ctx, root, marker, f"scale-{n}", stand_in=True)
        ctx.log(f"scale {n:,}: {out[n]}")
    return out


def write_small_files(root: Path, files: int) -> str:
    """`files` one-line modules in folders of 100 (the shape of a tree of generated
    stubs); returns a word only the last one holds."""
    done = root / ".complete"
    marker = f"smallmarker{files - 1}"
    if not done.exists():
        shutil.rmtree(root, ignore_errors=True)
        for n in range(files):
            folder = root / f"pkg{n // 100:04d}"
            folder.mkdir(parents=True, exist_ok=True)
            word = marker if n == files - 1 else f"value{n}"
            (folder / f"f{n:05d}.py").write_text(f"VALUE_{n} = {n}  # {word}\n")
        done.write_text("ok\n")
    return marker


@scenario("small_files", sizes=[10_000], fast_sizes=[500])
def small_files(ctx: Context, sizes: list[int]) -> Result:
    """N one-line files, stand-in model: seconds until the last answers by keyword."""
    out: Result = {}
    for n in sizes:
        root = ctx.workdir / f"small-{n}"
        marker = write_small_files(root, n)
        out[n] = _measure_tree(ctx, root, marker, f"small-{n}", stand_in=True)
        ctx.log(f"small_files {n:,}: {out[n]}")
    return out


@scenario("repo", sizes=[0], fast_sizes=[0], needs_model=True)
def repo(ctx: Context, sizes: list[int]) -> Result:
    """SEMLITH_BENCH_REPO with the real model: keyword-all / full seconds, RSS, size."""
    given = os.environ.get("SEMLITH_BENCH_REPO")
    if not given:
        ctx.log("repo: set SEMLITH_BENCH_REPO to a repository's folder; skipped")
        return {}
    root = ctx.workdir / "repo"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(given, root, ignore=shutil.ignore_patterns(".semlith", ".git"))
    last = max((p for p in root.rglob("*.py")), key=lambda p: p.as_posix())
    marker = "semlithbenchmarker"
    with last.open("a") as f:
        f.write(f"\n# {marker}\n")
    out = {0: _measure_tree(ctx, root, marker, "repo", stand_in=False)}
    ctx.log(f"repo {given}: {out[0]}")
    return out


# The Python standard library's packages this harness indexes as a corpus anyone has:
# the same bytes on every machine with the same Python (3.11.7 here: 42 files, 818 KB).
STDLIB_PACKAGES = ("email", "http", "json", "logging")


@scenario("index_stdlib", sizes=[1], fast_sizes=[1], needs_model=True)
def index_stdlib(ctx: Context, sizes: list[int]) -> Result:
    """Index four stdlib packages N times with the real model: chunks/s end to end."""
    import sysconfig

    root = ctx.workdir / "stdlib-corpus"
    if not root.exists():
        for name in STDLIB_PACKAGES:
            shutil.copytree(Path(sysconfig.get_paths()["stdlib"]) / name, root / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
    out: Result = {}
    for runs in sizes:
        rows = [_measure_tree(ctx, root, "", f"stdlib-{r}", stand_in=False, search=False)
                for r in range(runs)]
        best = max(rows, key=lambda m: float(m["chunks_per_s"]))
        out[runs] = {**best, "runs_chunks_per_s": " ".join(str(m["chunks_per_s"])
                                                           for m in rows)}
        ctx.log(f"index_stdlib x{runs}: {out[runs]}")
    return out


def _table_once(folder: str, home: str, stand_in: bool) -> Metrics:
    settings = Settings.load(env=_env(home))
    lib = LocalLibrary(settings, embedder_factory=StandIn() if stand_in else None)
    start = time.perf_counter()
    report = lib.index([folder])
    seconds = time.perf_counter() - start
    stats = lib.stats(scope=Scope(stores=(str(Path(folder) / ".semlith"),)))[0]
    lib.close()
    return {"chunks": report.chunks, "seconds": round(seconds, 1),
            "cut": next(iter(stats.chunked_by)),
            "peak_rss_mb": round(peak_rss_mb())}


@scenario("tables", sizes=[400_000], fast_sizes=[20_000])
def tables(ctx: Context, sizes: list[int]) -> Result:
    """A generated ~400 KB table per chunked language, alone: peak RSS, seconds, how cut.

    Sizes are bytes; the size's row gives the largest peak and each language its own
    `<language>_rss_mb` (the real model unless --fast)."""
    out: Result = {}
    for size in sizes:
        row: Metrics = {}
        for name in TABLE_LANGUAGES:
            folder = ctx.workdir / f"table-{size}" / name
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            (folder / f"MimeDB.{EXTENSIONS[name]}").write_text(data_table(name, size))
            home = _home(ctx.workdir, "tables")["SEMLITH_HOME"]
            got = isolated(_table_once, str(folder), home, ctx.fast)
            row[f"{name}_rss_mb"] = got["peak_rss_mb"]
            row[f"{name}_s"] = got["seconds"]
            ctx.log(f"table {name} {size:,} B: {got}")
        row["max_rss_mb"] = max(int(v) for k, v in row.items() if k.endswith("_rss_mb"))
        out[size] = row
    return out


# The watcher keeps a store current in a long-lived process: run `tables` through it
# too, so that a leak per file (issue #43: 171 MB -> 7.13 GB over three saves of one
# Scala table) shows as growth between rounds.
def _watch_rounds(folder: str, home: str, rounds: int) -> Metrics:
    from semlith.index.indexer import Indexer
    from semlith.store import Store

    settings = Settings.load(env=_env(home))
    root = Path(folder)
    store = Store.create(root / ".semlith", model=StandIn.name, dim=StandIn.dim,
                         settings=settings)
    path = next(p for p in root.iterdir() if p.is_file())
    peaks = []
    for r in range(rounds):
        with path.open("a") as f:
            f.write(f"\n// edit {r}\n" if path.suffix != ".py" else f"\n# edit {r}\n")
        Indexer(store, root, StandIn).run([path])
        peaks.append(peak_rss_mb())
    store.close()
    return {"first_rss_mb": round(peaks[0]), "last_rss_mb": round(peaks[-1]),
            "growth_mb": round(peaks[-1] - peaks[0])}


@scenario("table_saves", sizes=[10], fast_sizes=[3])
def table_saves(ctx: Context, sizes: list[int]) -> Result:
    """A 400 KB Scala table saved N times in one process (as the watcher does): RSS growth."""
    out: Result = {}
    for rounds in sizes:
        folder = ctx.workdir / f"saves-{rounds}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        (folder / "MimeDB.scala").write_text(data_table("scala", 400_000))
        home = _home(ctx.workdir, "saves")["SEMLITH_HOME"]
        out[rounds] = isolated(_watch_rounds, str(folder), home, rounds)
        ctx.log(f"table_saves {rounds}: {out[rounds]}")
    return out

