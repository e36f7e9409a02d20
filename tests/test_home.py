"""The registry (`stores.json`) under concurrent writers: real `semlith index` processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from semlith.base.home import registered_stores

REPO = Path(__file__).resolve().parent.parent
RUNS = 8


def _wait_for(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


@pytest.mark.slow
def test_eight_index_runs_registering_at_once_keep_every_entry(tmp_path: Path,
                                                               semlith_home: Path) -> None:
    """#25: eight concurrent runs kept 7, 3 and 6 of 8 entries without a lock."""
    gate = tmp_path / "gate"
    gate.mkdir()
    roots = []
    for i in range(RUNS):
        root = tmp_path / f"project{i}"
        root.mkdir()
        (root / "main.py").write_text(f"def handler_{i}():\n    return {i}\n")
        roots.append(root)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    runs = [subprocess.Popen([sys.executable, "-m", "tests.registering_indexer", str(root),
                              str(gate)], cwd=REPO, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT) for root in roots]
    try:
        _wait_for(lambda: len(list(gate.glob("ready-*"))) == RUNS
                  or any(r.poll() is not None for r in runs), 120, "every run at the gate")
        (gate / "go").touch()
        outputs = [r.communicate(timeout=120)[0].decode() for r in runs]
    finally:
        for run in runs:
            if run.poll() is None:
                run.kill()
    assert [r.returncode for r in runs] == [0] * RUNS, outputs
    entries = registered_stores(semlith_home)
    assert sorted(e.root for e in entries) == sorted(str(r.resolve()) for r in roots)


def test_a_registry_lock_held_too_long_is_an_error_naming_it(tmp_path: Path) -> None:
    from semlith.base.oslock import LockTimeout, held

    path = tmp_path / "stores.json.lock"
    with held(path), pytest.raises(LockTimeout, match=r"stores\.json\.lock"), \
            held(path, timeout=0.05):
        pass  # pragma: no cover - the second hold never starts
    with held(path, timeout=0.05):  # released: taken at once
        assert path.stat().st_mode & 0o077 == 0
