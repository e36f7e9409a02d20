"""Running the CLI as people do (click's runner), with the deterministic test model.

`tree` is a fixture: a test module imports it (`# noqa: F401`) to use it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from semlith.cli import Env, main
from tests.conftest import HashEmbedder

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "sample"


def run(*args: str) -> Result:
    """`semlith ARGS` in this process: a fresh environment (settings, library) per call."""
    return CliRunner().invoke(main, list(args),
                              obj=Env(embedder_factory=lambda name: HashEmbedder(name)))


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sample tree indexed with `semlith index`, the working directory in it."""
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    monkeypatch.chdir(root)
    assert run("index", str(root), "--quiet").exit_code == 0
    return root
