"""The registry (`stores.json`) under concurrent writers: real `semlith index` processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from semlith.base.home import registered_stores
from semlith.base.settings import Settings

REPO = Path(__file__).resolve().parent.parent
RUNS = 8


def _wait_for(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def _index_at_once(roots: list[Path], gate: Path) -> None:
    """`semlith index ROOT` for every root in its own process, all released into the
    registry at once (tests/registering_indexer.py); each must exit 0."""
    gate.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    runs = [subprocess.Popen([sys.executable, "-m", "tests.registering_indexer", str(root),
                              str(gate)], cwd=REPO, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT) for root in roots]
    try:
        _wait_for(lambda: len(list(gate.glob("ready-*"))) == len(roots)
                  or any(r.poll() is not None for r in runs), 120, "every run at the gate")
        (gate / "go").touch()
        outputs = [r.communicate(timeout=120)[0].decode() for r in runs]
    finally:
        for run in runs:
            if run.poll() is None:
                run.kill()
    assert [r.returncode for r in runs] == [0] * len(roots), outputs


def _project(root: Path, i: int) -> Path:
    root.mkdir(parents=True)
    (root / "main.py").write_text(f"def handler_{i}():\n    return {i}\n")
    return root


@pytest.mark.slow
def test_eight_index_runs_registering_at_once_keep_every_entry(tmp_path: Path,
                                                               semlith_home: Path) -> None:
    """#25: eight concurrent runs kept 7, 3 and 6 of 8 entries without a lock."""
    roots = [_project(tmp_path / f"project{i}", i) for i in range(RUNS)]
    _index_at_once(roots, tmp_path / "gate")
    entries = registered_stores(semlith_home)
    assert sorted(e.root for e in entries) == sorted(str(r.resolve()) for r in roots)


@pytest.mark.slow
def test_eight_folders_of_one_name_indexed_at_once_get_eight_names(
        tmp_path: Path, semlith_home: Path) -> None:
    """#47: eight concurrent runs of folders named `app` were named `app` twice, `app-2`
    twice and `app-4` three times: each chose its name before taking the lock."""
    roots = [_project(tmp_path / str(i) / "app", i) for i in range(RUNS)]
    _index_at_once(roots, tmp_path / "gate")
    entries = registered_stores(semlith_home)
    assert sorted(e.name for e in entries) == sorted(
        ["app", *(f"app-{n}" for n in range(2, RUNS + 1))])
    assert sorted(e.root for e in entries) == sorted(str(r.resolve()) for r in roots)
    from semlith.store import Store

    for entry in entries:  # each store knows the name it is registered under
        store = Store.open(Path(entry.folder), settings=Settings.load())
        try:
            assert store.name == entry.name
        finally:
            store.close()


def test_a_registry_lock_held_too_long_is_an_error_naming_it(tmp_path: Path) -> None:
    from semlith.base.oslock import LockTimeout, held

    path = tmp_path / "stores.json.lock"
    with held(path), pytest.raises(LockTimeout, match=r"stores\.json\.lock"), \
            held(path, timeout=0.05):
        pass  # pragma: no cover - the second hold never starts
    with held(path, timeout=0.05):  # released: taken at once
        assert path.stat().st_mode & 0o077 == 0
