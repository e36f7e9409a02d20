"""Shared by the ignore tests: git as the oracle (a repository, a case folder, what git
ignores) and the random ignore files of hypothesis."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest
from hypothesis import strategies as st

from semlith.ingest.ignore import Rules

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed (it is the oracle)")


def decision(rules: Rules, path: str) -> bool | None:
    """The last rule that matches `path`: True if it ignores, False if it re-includes."""
    data = path.encode()
    return next((ignores for regex, ignores in reversed(rules) if regex.search(data)), None)


GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def git_ignored(repo: Path, paths: Iterable[str],
                config: Sequence[str] = ("core.ignoreCase=false",)) -> set[str]:
    """Which of `paths` (relative to the git repository `repo`) git ignores, with the
    `-c` settings `config` (none: the repository's own)."""
    env = {**os.environ, **GIT_ENV, "HOME": str(repo), "XDG_CONFIG_HOME": str(repo)}
    assert GIT is not None
    flags = [arg for setting in config for arg in ("-c", setting)]
    done = subprocess.run(
        [GIT, *flags, "check-ignore", "--no-index", "-z", "--stdin"],
        cwd=repo, input=b"".join(p.encode() + b"\0" for p in paths), capture_output=True,
        env=env, check=False)
    assert done.returncode in (0, 1), done.stderr  # 1: none ignored
    return {p.decode() for p in done.stdout.split(b"\0") if p}


def make_repo(repo: Path) -> Path:
    assert GIT is not None
    subprocess.run([GIT, "init", "-q", str(repo)], check=True,
                   env={**os.environ, **GIT_ENV})
    return repo


def build_case(folder: Path, ignore_file: bytes, paths: Iterable[str]) -> list[str]:
    """A folder holding `ignore_file` as .gitignore and `paths` (folders end with "/");
    returns every file and folder below it, relative to it, without the trailing "/"."""
    folder.mkdir(parents=True)
    (folder / ".gitignore").write_bytes(ignore_file)
    made: set[str] = set()
    for path in sorted(paths, key=lambda p: -p.count("/")):
        parts = path.rstrip("/").split("/")
        made |= {"/".join(parts[:n]) for n in range(1, len(parts) + 1)}
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        if path.endswith("/"):
            (folder / path).mkdir(exist_ok=True)
        elif not (folder / path).exists():
            (folder / path).write_bytes(b"x")
    return sorted(made)



def build_table(repo: Path, table: Iterable[tuple[str, str, bool]]) -> dict[str, bool]:
    """One case folder per (pattern, path, expected) row, `t<n>/`; the paths asked
    (relative to `repo`, no trailing "/") with what each row expects."""
    asked: dict[str, bool] = {}
    for n, (line, path, expected) in enumerate(table):
        build_case(repo / f"t{n}", line.encode() + b"\n", [path])
        asked[f"t{n}/{path.rstrip('/')}"] = expected
    return asked

PIECES = ["a", "b", "*", "?", "/", "**", "[ab]", "!", "[!a]", "\\*"]
NAMES = ["a", "b", "ab", "ba", "aab"]
# What each piece may stand for in a path the pattern matches ("!" first is a negation).
FILLS = {"**": ["", "a/", "a/b/", "b"], "*": ["", "a", "ab"], "?": ["a", "b"],
         "[ab]": ["a", "b"], "[!a]": ["b"], "\\*": ["*"], "!": ["", "!"]}


@st.composite
def cases(draw: st.DrawFn) -> tuple[bytes, list[str]]:
    """An ignore file of 1-4 random lines, and a tree: random paths and, for each line, a
    path filled in from it (so that lines match often), some of them folders."""
    lines = draw(st.lists(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6),
                          min_size=1, max_size=4))
    paths = draw(st.lists(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4)
                          .map("/".join), max_size=4))
    for pieces in lines:
        filled = "".join(draw(st.sampled_from(FILLS.get(p, [p]))) for p in pieces)
        filled = draw(st.sampled_from(["", "a/"])) + filled
        paths.append("/".join(part for part in filled.split("/") if part) or "a")
    paths = [p + draw(st.sampled_from(["", "", "/"])) for p in paths]
    return b"".join("".join(pieces).encode() + b"\n" for pieces in lines), paths
