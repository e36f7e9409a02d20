"""The code graph against jedi as an LSP's call hierarchy counts calls (issue #45).

    python benchmarks/graph_lsp.py [--downloads DIR] [--workdir DIR] [--json OUT]
        [--only NAME ...]

An independent check beside `graph.py`'s: each corpus is fetched from PyPI as the
issue names it (an sdist, with pip's own client), jedi is run on it there and then
(`graph_reference/python_jedi.py --constructors`: a call of a class is an edge to the
`__init__` it runs, as an LSP's call hierarchy counts it, not to the class), and every
stored call the graph resolves is scored the same way: a settled call of a class
counts as a call of `Resolver.runs(class)`. Precision is over the settled claims
(extracted and resolved) that jedi judges (score.py's rules: a wrong claim on a line
jedi could not answer is not judged); recall is the reference edges a settled claim
finds.

Goals (issue #45): requests precision >= 0.97 with recall >= 0.95; starlette 0.47.2
(classes built by calls) >= 0.95 / 0.90.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "graph_reference")]

from graph import SETTINGS, index_copy, resolved_calls  # noqa: E402
from reference import load  # noqa: E402
from score import _claim, report, score  # noqa: E402

from semlith.store import Store  # noqa: E402

# name -> (pip requirement, the folder analysed under the sdist's root)
CORPORA = {
    "requests": ("requests==2.33.1", "src/requests"),
    "starlette": ("starlette==0.47.2", "starlette"),
}
GOALS = {"requests": (0.97, 0.95), "starlette": (0.95, 0.90)}


def fetched(name: str, into: Path) -> Path:
    """The unpacked sdist of corpus `name` under `into`, fetched once with pip."""
    spec, _ = CORPORA[name]
    target = into / spec.replace("==", "-")
    if target.is_dir():
        return target
    into.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=into) as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", spec, "--no-deps",
                        "--no-binary", ":all:", "-d", tmp, "-q"], check=True)
        packed = next(Path(tmp).glob("*.tar.gz"))
        with tarfile.open(packed) as tar:
            tar.extractall(tmp, filter="data")
        unpacked = next(p for p in Path(tmp).iterdir() if p.is_dir())
        unpacked.rename(target)
    return target


def reference_of(name: str, root: Path, into: Path) -> Path:
    """jedi's edges for the corpus, by the constructor convention (made once)."""
    out = into / f"{root.name}.lsp.json"
    if not out.exists():
        subprocess.run([sys.executable, str(HERE / "graph_reference" / "python_jedi.py"),
                        str(root), str(out), "--under", CORPORA[name][1], "--constructors",
                        "--corpus", root.name], check=True)
    return out


def claims_of(store: Store) -> list[dict[str, Any]]:
    """Every stored call resolved, a class's call as the constructor it runs."""
    return [{**site, "candidates": [
        {"callee_path": t.path, "callee_start_line": t.line}
        for t in (resolver.runs(target) for target in res.targets)]}
        for site, res, resolver in resolved_calls(store)]


def check(name: str, downloads: Path, work: Path) -> dict[str, Any]:
    root = fetched(name, downloads)
    reference = load(reference_of(name, root, downloads))
    indexed = index_copy(root, work / name)
    with Store.open(indexed / ".semlith", settings=SETTINGS) as store:
        claims = claims_of(store)
    row = report(name, score(reference, sorted({_claim(c, "") for c in claims}, key=repr)))
    settled = [s for s in row["judged"] if s != "ambiguous"]
    judged = sum(row["judged"][s] for s in settled)
    right = sum(round(row["precision"][s] * row["judged"][s]) for s in settled)
    row["settled_precision"] = round(right / judged, 4) if judged else None
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--downloads", type=Path,
                        default=Path(tempfile.gettempdir()) / "semlith-graph-corpora")
    parser.add_argument("--workdir", type=Path, help="keep the indexed copies here")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="semlith-graph-lsp-"))
    rows = []
    try:
        for name in CORPORA:
            if args.only and name not in args.only:
                continue
            row = check(name, args.downloads, work)
            rows.append(row)
            goal = GOALS[name]
            met = (row["settled_precision"] or 0) >= goal[0] and row["recall"] >= goal[1]
            print(f"{name}: precision {row['settled_precision']} (judged "
                  f"{sum(v for k, v in row['judged'].items() if k != 'ambiguous')}), recall "
                  f"{row['recall']} of {row['reference_edges']}, ambiguous share "
                  f"{row['ambiguous_share']}; goal {goal[0]} / {goal[1]}: "
                  f"{'met' if met else 'not met'}", flush=True)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2) + "\n")
    finally:
        if args.workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
