"""semlith benchmarks: `python benchmarks/bench.py [--fast] [--scenario NAME] [--json PATH]`.

Scenarios are registered by the `scenarios_*.py` modules beside this file. Every timing
is a p50/p95 over on-disk stores with warm-up runs discarded. `--fast` runs the scenarios
that need no model at small sizes (the smoke check CI runs). `SEMLITH_PERF=off` turns
every optimisation off so a regression can be bisected in one step.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import importlib

from harness import SCENARIOS, Context, Result, machine, write_json

# Scenario modules register themselves on import. One whose optional dependency is
# missing (usearch comes with the `bench` extra) is left out with a note.
SCENARIO_MODULES = ["scenarios_store", "scenarios_index", "scenarios_chunk",
                    "scenarios_daemon", "scenarios_watch", "scenarios_usearch",
                    "scenarios_model", "scenarios_images", "scenarios_milvus",
                    "scenarios_secrets", "scenarios_soak", "scenarios_walk",
                    "scenarios_milvus_outage", "scenarios_vector_cache", "scenarios_edges",
                    "scenarios_portal", "scenarios_memory", "scenarios_grep",
                    "scenarios_registry", "scenarios_scale"]
MISSING: dict[str, str] = {}
for _module in SCENARIO_MODULES:
    try:
        importlib.import_module(_module)
    except ImportError as _exc:
        MISSING[_module] = str(_exc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="small sizes, no model")
    parser.add_argument("--scenario", action="append", default=[],
                        help="run only this scenario (repeatable); default: all")
    parser.add_argument("--sizes", help="comma-separated sizes, e.g. 10000,100000")
    parser.add_argument("--json", type=Path, help="write results to this JSON file")
    parser.add_argument("--workdir", type=Path, help="keep synthetic stores here for reuse")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    args = parser.parse_args(argv)
    if args.list:
        for sc in SCENARIOS.values():
            print(f"{sc.name:22} {'(model) ' if sc.needs_model else ''}{sc.doc}")
        return 0
    unknown = [n for n in args.scenario if n not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario {unknown[0]!r}; choose from {', '.join(SCENARIOS)}")
    names = args.scenario or [n for n, sc in SCENARIOS.items()
                              if not (args.fast and sc.needs_model)]
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",")] if args.sizes else None
    tmp = None
    if args.workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="semlith-bench-")
        args.workdir = Path(tmp.name)
    args.workdir.mkdir(parents=True, exist_ok=True)
    ctx = Context(workdir=args.workdir, fast=args.fast, sizes=sizes,
                  log=lambda m: print(m, file=sys.stderr, flush=True))
    print(f"machine: {machine()}", file=sys.stderr)
    for module, why in MISSING.items():
        print(f"note: {module} not loaded ({why}); pip install -e '.[bench]'", file=sys.stderr)
    results: dict[str, Result] = {}
    for name in names:
        sc = SCENARIOS[name]
        chosen = sizes or (sc.fast_sizes if args.fast else sc.sizes)
        start = time.perf_counter()
        results[name] = sc.func(ctx, chosen)
        print(f"== {name} ({time.perf_counter() - start:.1f} s)", file=sys.stderr)
        for size, metrics in results[name].items():
            print(f"{name}\t{size}\t" + "  ".join(f"{k}={v}" for k, v in metrics.items()))
    if args.json:
        write_json(args.json, results)
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
