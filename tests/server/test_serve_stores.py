"""`semlith serve` chooses its stores as every command does, with `--store` (issue #23),
and still as arguments (scripts written before it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.daemon_util import env_for, start_daemon

HASH_CLI = ("-m", "tests.hash_cli", "0")  # the real command, with the test model


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("serve-stores")
    for name in ("alpha", "beta", "gamma"):
        (tmp / name).mkdir()
        (tmp / name / f"{name}.py").write_text(f"def {name}():\n    return 1\n")
        done = subprocess.run([sys.executable, *HASH_CLI, "index", str(tmp / name), "--quiet"],
                              env=env_for(tmp / "home"), capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
    return tmp / "home"


def _served(home: Path, *args: str) -> set[str]:
    daemon = start_daemon(home, "--no-watch", *args, command=HASH_CLI)
    try:
        status = httpx.get(daemon.url + "/api/status", headers=daemon.api, timeout=10).json()
    finally:
        assert daemon.stop() == 0
    return set(status["stores"])


def test_store_options_choose_the_stores(home: Path) -> None:
    assert _served(home, "--store", "alpha", "--store", "gamma") == {"alpha", "gamma"}


def test_store_arguments_still_work_beside_the_option(home: Path) -> None:
    assert _served(home, "beta", "--store", "alpha") == {"alpha", "beta"}
    assert _served(home) == {"alpha", "beta", "gamma"}
