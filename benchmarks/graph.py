"""The code graph measured (issue #22): call edges against the reference oracles, and
the speed of neighbors / impact / path.

    python benchmarks/graph.py [--corpora /work/corpora] [--only NAME ...] [--json OUT]
        [--downloads DIR]

Each corpus is copied, indexed with a filler embedder (the graph needs no model), and
every stored call is resolved; the claims (caller file, call line, callee file, the
callee's own first line, status) are scored with graph_reference/score.py against the
oracle's edges (benchmarks/graph_oracles.md): precision per status, ambiguous share,
recall, per corpus and per language. "Settled share" is the settled claims over all
claims that name a corpus definition. Speed: p50/p95 of the library's neighbors,
impact (depth 3) and path over the definitions of the largest corpus store.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "graph_reference")]

from harness import percentiles  # noqa: E402
from reference import load  # noqa: E402
from scenarios_chunk import _filler_library  # noqa: E402
from score import Score, _claim, report, score  # noqa: E402

from semlith.base.settings import Settings  # noqa: E402
from semlith.errors import UnknownSymbol  # noqa: E402
from semlith.graph import answers  # noqa: E402
from semlith.graph.resolve import Resolver  # noqa: E402
from semlith.store import Store  # noqa: E402
from semlith.types import Filters  # noqa: E402

REPO = HERE.parent
SETTINGS = Settings.load(env={"SEMLITH_HOME": tempfile.gettempdir()})
GOCODE = Path("/usr/share/gocode/src/github.com")
# name -> (folder under --corpora, or an absolute one; the reference)
CORPORA: dict[str, tuple[str, str]] = {
    "requests": ("requests", "requests.python.json"),
    "flask": ("flask", "flask.python.json"),
    "click": ("click", "click.python.json"),
    "httpx": ("httpx", "httpx.python.json"),
    "starlette": ("starlette", "starlette.python.json"),
    "fastapi": ("fastapi", "fastapi.python.json"),
    "pycg-micro": (str(REPO / "fixtures" / "pycg-micro" / "snippets"), "pycg-micro.python.json"),
    "axios": ("axios", "axios.javascript.json"),
    "express": ("express", "express.javascript.json"),
    "redux": ("redux", "redux.typescript.json"),
    "immer": ("download:immer", "immer.typescript.json"),
    "chi": (str(GOCODE / "go-chi" / "chi"), "chi.go.json"),
    "toml": (str(GOCODE / "BurntSushi" / "toml"), "toml.go.json"),
    "semver": ("/usr/share/cargo/registry/semver-1.0.14", "semver.rust.json"),
}

# Corpora the benchmark fetches itself, with npm's own client, into --downloads: the
# package and version, the integrity npm reports for its tarball (checked), and the
# tagged commit its sources are (their `src/` is byte-identical to the tag's).
DOWNLOADS: dict[str, tuple[str, str, str]] = {
    "immer": ("immer@10.1.1", "sha512-s2MPrmjovJcoMaHtx6K11Ra7oD05NT97w1IC5zpMkT6Atjr7H8L"
              "jaDd81iIxUYpMKSRRNMJE703M1Fhr/TctHw==",
              "github.com/immerjs/immer v10.1.1 = e2d222bd4fb26abded04075c936290715e9ee335"),
}


def downloaded(name: str, into: Path) -> Path:
    """The unpacked package of corpus `name` under `into`, fetched once."""
    target = into / name
    if target.is_dir():
        return target
    spec, integrity, _ = DOWNLOADS[name]
    into.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=into) as tmp:
        packed = subprocess.run(["npm", "pack", spec, "--json", "--pack-destination", tmp],
                                check=True, capture_output=True, text=True)
        info = json.loads(packed.stdout)[0]
        if info["integrity"] != integrity:
            raise SystemExit(f"{spec}: integrity {info['integrity']} is not the pinned "
                             f"{integrity}")
        with tarfile.open(Path(tmp) / info["filename"]) as tar:
            tar.extractall(tmp, filter="data")
        (Path(tmp) / "package").rename(target)
    return target


def index_copy(source: Path, work: Path) -> Path:
    """A copy of `source` under `work`, indexed (a copy kept from before is brought up
    to date: a no-op when nothing changed)."""
    root = work / source.name
    if not root.exists():
        shutil.copytree(source, root, symlinks=True,
                        ignore=shutil.ignore_patterns(".semlith", "node_modules", ".git"))
    _filler_library(str(work)).index([str(root)])
    return root


def resolved_calls(store: Store) -> Iterator[tuple[dict[str, Any], Any, Resolver]]:
    """Every stored call the resolver resolves: (its site as a claim's fields, the
    resolution, the resolver). graph_lsp.py reads its claims from the same walk."""
    resolver = Resolver(store.graph)
    for f in resolver.modules.all_files():
        for call in store.graph.file_edges(f.id).calls:
            res = resolver.resolve(f.id, call)
            if res is not None:
                yield ({"caller_path": f.path, "call_line": call.line,
                        "status": str(res.status)}, res, resolver)


def claims_of(store: Store) -> list[dict[str, Any]]:
    """Every stored call resolved, as score.py's claims."""
    out: list[dict[str, Any]] = []
    for site, res, _ in resolved_calls(store):
        if res.settled and len(res.targets) == 1:
            t = res.targets[0]
            out.append({**site, "callee_path": t.path, "callee_start_line": t.line})
        else:  # ambiguous, or a name bound to each of several (`h = md5` / `h = sha`)
            out.append({**site, "candidates": [
                {"callee_path": t.path, "callee_start_line": t.line} for t in res.targets]})
    return out


def speed(store: Store, label: str, runs: int = 20) -> dict[str, Any]:
    """p50/p95 (ms) of neighbors, impact depth 3 and path over definitions that are
    called: cold (a resolver built for each question, a store just opened) and warm
    (one resolver across the distinct questions, as the daemon holds it); and of
    `neighbors` of the same names misspelled (`unknown`: "no definition of X; nearest:
    ...")."""
    resolver = Resolver(store.graph)
    names: list[str] = []
    pairs: list[tuple[str, str]] = []
    for file_id in [f.id for f in resolver.modules.all_files()][:200]:
        for call in store.graph.file_edges(file_id).calls:
            res = resolver.resolve(file_id, call)
            if res is not None and res.settled and call.caller != "<module>":
                t = res.targets[0]
                names.append(t.qualname)
                pairs.append((call.caller, t.qualname))
    names, pairs = list(dict.fromkeys(names))[:runs], list(dict.fromkeys(pairs))[:runs]
    opened = [(label, store)]
    out: dict[str, Any] = {"chunks": store.catalog.chunk_count(), "queries": len(names)}
    for op, calls in (
            ("neighbors", [lambda n=n: answers.neighbors(  # type: ignore[misc]
                opened, n, kinds=(), filters=Filters(), all_edges=False, budget=4000)
                for n in names]),
            ("impact", [lambda n=n: answers.impact(  # type: ignore[misc]
                opened, n, depth=3, filters=Filters(), all_edges=False, budget=4000)
                for n in names]),
            ("path", [lambda a=a, b=b: answers.path(  # type: ignore[misc]
                opened, a, b, filters=Filters(), all_edges=False, budget=4000)
                for a, b in pairs]),
            ("unknown", [lambda n=n: _refused(lambda: answers.neighbors(
                opened, n, kinds=(), filters=Filters(), all_edges=False, budget=4000))
                for n in map(_misspelled, names)])):
        cold, warm = [], []
        for fn in calls:  # a store just opened: no resolver cached
            answers._RESOLVERS.clear()
            cold += _timed_call(fn, op)
        answers._RESOLVERS.clear()
        # Built before the clock starts: with 20 samples p95 is the slowest, and it was
        # this build (~50-170 ms), which the cold column already times (2026-12-01).
        answers.resolver_of(store.graph)
        for fn in calls:  # the daemon's case: one resolver held across distinct questions
            warm += _timed_call(fn, op)
        out[op] = percentiles(warm) if warm else {}
        out[f"{op}_cold"] = percentiles(cold) if cold else {}
    return out


def _misspelled(name: str) -> str:
    """`name` with the two letters after its middle swapped (`Session.sned`)."""
    i = len(name) // 2
    return name[:i] + name[i + 1:i + 2] + name[i] + name[i + 2:] if len(name) > 3 else name + "x"


def _refused(fn: Any) -> None:
    """Run `fn`; a name it does not know is its answer (timed like the others)."""
    with contextlib.suppress(UnknownSymbol):
        fn()


def _timed_call(fn: Any, op: str) -> list[float]:
    started = time.perf_counter()
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - a name the chooser refuses: not timed
        print(f"  {op}: {exc}", file=sys.stderr)
        return []
    return [time.perf_counter() - started]


def settled_share(row: dict[str, Any]) -> float | None:
    by = row["claims_by_status"]
    total = sum(by.values())
    return round((total - by.get("ambiguous", 0)) / total, 4) if total else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=Path(
        os.environ.get("SEMLITH_CORPORA", "/work/corpora")))
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--downloads", type=Path,
                        default=Path(tempfile.gettempdir()) / "semlith-graph-corpora",
                        help="where the corpora it fetches itself (DOWNLOADS) are kept")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--no-speed", action="store_true")
    parser.add_argument("--workdir", type=Path,
                        help="keep the indexed copies here and reuse them next time")
    parser.add_argument("--speed-corpus", type=Path,
                        help="time the commands on this folder instead (indexed as a copy), "
                        "e.g. every corpus at once for a store near 100k chunks")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    languages: defaultdict[str, Score] = defaultdict(lambda: Score(statuses={}))
    largest: tuple[int, str, Path] | None = None
    work = args.workdir or Path(tempfile.mkdtemp(prefix="semlith-graph-"))
    try:
        for name, (folder, ref_name) in CORPORA.items():
            if args.only and name not in args.only:
                continue
            if folder.startswith("download:"):
                source = downloaded(folder.removeprefix("download:"), args.downloads)
            else:
                source = Path(folder) if Path(folder).is_absolute() else args.corpora / folder
            if not source.is_dir():
                print(f"{name}: {source} is missing; skipped", file=sys.stderr)
                continue
            started = time.perf_counter()
            root = index_copy(source, work / name)
            store = Store.open(root / ".semlith", settings=SETTINGS)
            try:
                claims = claims_of(store)
                chunks = store.catalog.chunk_count()
            finally:
                store.close()
            reference = load(HERE / "graph_reference" / "data" / ref_name)
            result = score(reference, sorted({_claim(c, "") for c in claims}, key=repr))
            row = report(name, result)
            row.update(language=reference.meta.get("language"), settled_share=settled_share(row),
                       seconds=round(time.perf_counter() - started, 1))
            rows.append(row)
            languages[str(reference.meta.get("language"))].add(result)
            print(_line(row), flush=True)
            if largest is None or chunks > largest[0]:
                largest = (chunks, name, root)
        for language, total in languages.items():
            row = report(f"all {language}", total)
            row.update(language=language, settled_share=settled_share(row))
            rows.append(row)
            print(_line(row), flush=True)
        timing = {}
        if args.speed_corpus is not None:
            root = index_copy(args.speed_corpus, work / "speed")
            largest = (0, args.speed_corpus.name, root)
        if largest is not None and not args.no_speed:
            store = Store.open(largest[2] / ".semlith", settings=SETTINGS)
            try:
                timing = {"corpus": largest[1], **speed(store, largest[1])}
            finally:
                store.close()
            print(json.dumps(timing), flush=True)
        if args.json:
            args.json.write_text(json.dumps({"rows": rows, "speed": timing}, indent=2) + "\n")
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _line(row: dict[str, Any]) -> str:
    p = row["precision"]
    return (f"| {row['name']} | {row['reference_edges']} | {_pct(p.get('extracted'))} | "
            f"{_pct(p.get('resolved'))} | {_pct(p.get('ambiguous'))} | "
            f"{_pct(row['ambiguous_share'])} | {_pct(row['settled_share'])} | "
            f"{_pct(row['recall'])} | {_pct(row['recall_with_ambiguous'])} |")


if __name__ == "__main__":
    sys.exit(main())
