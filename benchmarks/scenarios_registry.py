"""A SEMLITH_HOME with many registered stores (issue #25: benchmarks register hundreds):
`Library.read` and `semlith read` (in process) p50/p95 of one file in one real store, and
`Library.brief` of one question near it, with N registered stores beside it, half of them
tiny stores and half folders that are gone. No model: a filler embedder for the brief."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from click.testing import CliRunner
from harness import Context, Result, scenario, timed
from scenarios_index import _Filler, _small_files
from synth import DIM

from semlith.base.home import REGISTRY
from semlith.base.settings import Settings
from semlith.cli import Env, main
from semlith.embed.text import DEFAULT_MODEL
from semlith.local import LocalLibrary
from semlith.store import Store
from semlith.types import Scope

TARGET = "pkg000/f00001.py"


def _home(workdir: Path, registered: int) -> tuple[Path, Path]:
    """(SEMLITH_HOME, the real store's root): one indexed tree, and `registered` - 1 other
    entries in the registry, written at once (registering them one by one rewrites the
    registry each time)."""
    home, root = workdir / f"registry-{registered}", workdir / f"registry-{registered}" / "app"
    if (home / REGISTRY).exists():
        return home, root
    settings = Settings.load(env={**os.environ, "SEMLITH_HOME": str(home)})
    _small_files(root, 200)
    lib = LocalLibrary(settings, embedder_factory=_Filler())
    lib.index([str(root)])
    lib.close()
    tiny = home / "tiny" / "t00000" / ".semlith"
    Store.create(tiny, model=DEFAULT_MODEL, dim=DIM, settings=settings).close()
    entries = json.loads((home / REGISTRY).read_text())["stores"]
    for n in range(1, registered):
        folder = home / "tiny" / f"t{n:05d}" / ".semlith"
        if n % 2:  # a store folder that was deleted after it was registered
            folder = home / "gone" / f"g{n:05d}" / ".semlith"
        elif n:
            shutil.copytree(tiny, folder)
        entries.append({"folder": str(folder), "root": str(folder.parent),
                        "model": DEFAULT_MODEL, "name": folder.parent.name})
    (home / REGISTRY).write_text(json.dumps({"stores": entries}, indent=2) + "\n")
    return home, root


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    was = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(was)


def _measure(home: Path, root: Path, runs: int) -> dict[str, dict[str, float]]:
    """p50/p95 of a read by `store:path`, by path near the tree, `semlith read`, and a
    brief near the tree (its search and its graph: one read of the registry)."""
    settings = Settings.load(env={**os.environ, "SEMLITH_HOME": str(home)})
    lib = LocalLibrary(settings, embedder_factory=_Filler())
    near = Scope(near=(str(root),))
    assert lib.read(TARGET, scope=near).lines
    out = {"read_by_name": timed(lambda: lib.read(f"app:{TARGET}"), runs, warmup=2),
           "read_near": timed(lambda: lib.read(TARGET, scope=near), runs, warmup=2),
           "brief_near": timed(lambda: lib.brief("how are files read", scope=near), runs,
                               warmup=2)}
    lib.close()
    runner = CliRunner()

    def cli() -> None:
        result = runner.invoke(main, ["read", TARGET], env={"SEMLITH_HOME": str(home)},
                               obj=Env(embedder_factory=_Filler()))
        assert result.exit_code == 0, result.output

    with _inside(root):
        out["cli_read"] = timed(cli, runs, warmup=2)
    return out


@scenario("registry", sizes=[1, 1_500], fast_sizes=[1, 300])
def registry(ctx: Context, sizes: list[int]) -> Result:
    """read and brief with N registered stores (half tiny, half gone): Library.read,
    `semlith read`, Library.brief."""
    out: Result = {}
    for registered in sizes:
        timings = _measure(*_home(ctx.workdir, registered), runs=5 if ctx.fast else 21)
        out[registered] = {"registered": registered, **{
            f"{name}_{stat}": value for name, t in timings.items() for stat, value in t.items()}}
        ctx.log(f"registry {registered}: {out[registered]}")
    return out
