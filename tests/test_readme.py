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


def test_quick_start_makes_a_virtual_environment_then_installs() -> None:
    assert len(BLOCKS) >= 2
    first = commands(BLOCKS[0])
    assert first[0].startswith("python3 -m venv .venv && . .venv/bin/activate")
    assert first[1].startswith("pip install .")
    # The second block runs on its own (CI runs it in a shell of its own): it installs
    # everything the tests need itself.
    # The test extra leaves torch out (PyPI's is the CUDA build): the block asks for the
    # images extra by name, so that the CLIP tests run (docs/images.md).
    assert commands(BLOCKS[1])[0].startswith("pip install -e '.[test,images]'")
    assert "pytest" in commands(BLOCKS[1])[-1]


def _sample_checkout(tmp_path: Path) -> dict[str, str]:
    """fixtures/sample under `tmp_path` as in a checkout; the environment to run in."""
    shutil.copytree(ROOT / "fixtures" / "sample", tmp_path / "fixtures" / "sample",
                    ignore=shutil.ignore_patterns(".semlith"))
    bindir = Path(sys.executable).parent
    return {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.slow
@pytest.mark.model
def test_quick_start_main_job_runs(tmp_path: Path) -> None:
    env = _sample_checkout(tmp_path)
    outputs = []
    for line in [c for c in commands(BLOCKS[0]) if c.startswith("semlith ")]:
        done = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, f"{line!r} failed: {done.stderr}"
        outputs.append(done.stdout)
    assert "indexed" in outputs[0]
    assert outputs[-1].splitlines()[0].startswith("net/retry.py:")


def test_the_readme_names_the_listed_mcp_tools() -> None:
    from semlith.server.mcp import LISTED

    assert set(re.findall(r"semlith_[a-z]+", README)) == LISTED


def test_contributing_runs_only_what_the_repository_and_its_extras_provide() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text()
    blocks = re.findall(r"```(?:sh|bash)?\n(.*?)```", text, re.S)
    programs = {line.split()[0] for block in blocks for line in block.splitlines()
                if line.strip() and not line.startswith("#")}
    inline = set(re.findall(r"`([a-z][\w.-]*) --?[a-z]", text))
    provided = {"python", "python3", "pip", "ruff", "mypy", "semlith", "SEMLITH_PERF=off"}
    foreign = [p for p in programs | inline if p not in provided and not (ROOT / p).exists()]
    assert not foreign, f"CONTRIBUTING.md runs what a clone does not have: {foreign}"


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


def _session(block: str) -> list[tuple[str, list[str]]]:
    """A `console` block as (command, the output lines shown under it)."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def _masked(line: str) -> str:
    """Timings and scores vary a little by machine: their digits are not compared."""
    return re.sub(r"\d+\.\d+", "#.#", line.rstrip())


def _shows(shown: list[str], printed: list[str]) -> bool:
    """Whether `printed` is what `shown` shows: the same lines in order, where a `...`
    line stands for any number of lines."""
    segments: list[list[str]] = [[]]
    for line in shown:
        if line == "...":
            segments.append([])
        else:
            segments[-1].append(_masked(line))
    printed = [_masked(line) for line in printed]
    if len(segments) == 1:
        return printed == segments[0]
    first, *middle, last = segments
    if printed[:len(first)] != first:
        return False
    at = len(first)
    for segment in middle:
        found = next((i for i in range(at, len(printed) - len(segment) + 1)
                      if printed[i:i + len(segment)] == segment), None)
        if found is None:
            return False
        at = found + len(segment)
    return len(printed) - len(last) >= at and printed[len(printed) - len(last):] == last


def test_the_sessions_matcher() -> None:
    assert _shows(["a", "..."], ["a", "b"]) and not _shows(["a"], ["a", "b"])
    assert _shows(["...", "b", "..."], ["a", "b", "c"]) and _shows([], [])
    assert _shows(["x 1.5 s"], ["x 0.7 s"]) and not _shows(["a", "c"], ["a", "b", "c"])


USING_IT = next(b for b in BLOCKS if b.startswith("$ semlith index fixtures/sample"))


@pytest.mark.slow
@pytest.mark.model
def test_using_it_prints_what_the_readme_shows(tmp_path: Path) -> None:
    env = {**_sample_checkout(tmp_path), "SEMLITH_HOME": str(tmp_path / "home")}
    cwd = tmp_path
    steps = _session(USING_IT)
    assert len(steps) >= 8
    for command, shown in steps:
        if command.startswith("cd "):
            cwd = cwd / command.split()[1]
            continue
        done = subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, f"{command!r} failed: {done.stderr}"
        assert _shows(shown, done.stdout.splitlines()), (command, done.stdout)
