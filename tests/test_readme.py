"""The README's quick start runs as written (the install line aside: we are installed)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```(?:sh|bash|shell|console)?\n(.*?)```", README, re.S)


def commands(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_quick_start_has_two_blocks_install_first() -> None:
    assert len(BLOCKS) >= 2
    assert commands(BLOCKS[0])[0].startswith("pip install .")
    assert commands(BLOCKS[1])[0].startswith("pip install -e '.[test]'")
    assert "pytest" in commands(BLOCKS[1])[-1]


@pytest.mark.slow
@pytest.mark.model
def test_quick_start_main_job_runs(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "fixtures" / "sample", tmp_path / "fixtures" / "sample",
                    ignore=shutil.ignore_patterns(".semlith"))
    bindir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    outputs = []
    for line in commands(BLOCKS[0])[1:]:
        done = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, f"{line!r} failed: {done.stderr}"
        outputs.append(done.stdout)
    assert "indexed" in outputs[0]
    assert outputs[-1].splitlines()[0].startswith("net/retry.py:")


def test_contributing_names_only_files_in_the_repository() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text()
    assert "../" not in text  # nothing beside the checkout: a clone has only the repository
    named = re.findall(r"`([\w.][\w./-]*)`", text) + re.findall(r"\]\(([^)#]+)\)", text)
    paths = [n for n in named if n.endswith("/") or "/" in n
             or re.search(r"\.(md|py|sh|toml|json|txt|ya?ml)$", n)]
    assert len(paths) > 10
    missing = [p for p in paths if not (ROOT / p).exists() and not (ROOT / "semlith" / p).exists()]
    assert not missing, f"CONTRIBUTING.md names files the repository lacks: {missing}"


def test_the_cli_reference_shows_the_command_people_type() -> None:
    text = (ROOT / "docs" / "cli.md").read_text()
    sections = re.findall(r"^## `(semlith[^`]*)`\n+```text\nUsage: ([^\[\n]*)", text, re.M)
    assert len(sections) > 10
    for title, usage in sections:
        assert usage.strip() == title, (title, usage)
