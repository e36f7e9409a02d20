"""Ignore files as git reads them from a repository: a symlinked ignore file is not read
(git 2.32+), and `core.ignoreCase` folds ASCII case; git itself is the oracle."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semlith.ingest.ignore import ignore_case, parse_ignore
from semlith.ingest.walk import SkipReason, is_ignored, walk_files
from tests.ingest.ignore_util import (
    GIT,
    build_case,
    build_table,
    cases,
    decision,
    git_ignored,
    make_repo,
    needs_git,
)

needs_symlinks = pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt",
                                    reason="symlinks need privileges on Windows")

# (pattern, path, whether it matches under core.ignoreCase); checked against git below.
FOLDED = [
    ("*.log", "A.LOG", True), ("build/", "BUILD/", True), ("/Doc/frotz", "doc/FROTZ", True),
    ("[a-c]x", "Bx", True), ("[B-D]x", "cx", True), ("[[:upper:]]x", "ax", True),
    ("[[:lower:]]x", "Ax", True), ("a?c", "AbC", True), ("**/Foo", "x/foo", True),
    ("[!a]", "A", False), ("[!a]", "b", True), ("abc/**", "ABC/x", True),
    ("é", "É", False),  # git folds ASCII only
    ("x[[:digit:]]", "xA", False),
    # wildmatch.c lowers the path's byte but not a bracket's single members: "[A]" then
    # matches nothing and "[!A]" everything, while ranges and classes match either case.
    ("[A]x", "Ax", False), ("[A]x", "ax", False), ("[!A]x", "Ax", True),
    ("[Ab]x", "Bx", True), ("[Ab]x", "Ax", False), ("[A-C]x", "bx", True),
    ("[!A-C]x", "bx", False), ("[!a]x", "Ax", False),
]


def walked(root: Path) -> dict[str, str | None]:
    return {item.rel: getattr(item, "reason", None) for item in walk_files(root)}


@needs_git
@needs_symlinks
def test_a_symlinked_gitignore_is_not_read_as_in_git(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A `.gitignore` linking to a file outside the root would be a read outside it."""
    outside = tmp_path / "outside.txt"
    outside.write_text("*.py\n")
    repo = make_repo(tmp_path / "repo")
    (repo / "app.py").write_text("x = 1\n")
    (repo / "sub").mkdir()
    (repo / "sub" / "b.py").write_text("y = 2\n")
    (repo / ".gitignore").symlink_to(outside)
    (repo / "sub" / ".semlithignore").symlink_to(outside)
    assert git_ignored(repo, ["app.py", "sub/b.py"], ()) == set()  # git does not follow it
    with caplog.at_level(logging.WARNING, logger="semlith.ingest.ignore"):
        found = walked(repo)
        walked(repo)
    assert found["app.py"] is None and found["sub/b.py"] is None
    assert is_ignored(repo, "app.py") is None and is_ignored(repo, "sub/b.py") is None
    said = [r.getMessage() for r in caplog.records]
    assert sum("is a symbolic link: not read" in m for m in said) == 2  # once per file
    assert not any("outside.txt" in m for m in said)


@needs_git
def test_core_ignorecase_folds_ascii_case_as_git_does(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    asked = build_table(repo, FOLDED)
    assert git_ignored(repo, asked, ("core.ignoreCase=true",)) == \
        {p for p, yes in asked.items() if yes}
    for line, path, expected in FOLDED:
        assert decision(parse_ignore(line.encode(), casefold=True), path) is \
            (True if expected else None), (line, path)
    # The walk asks the repository's own config: case-sensitive unless it says otherwise.
    for setting in ("false", "true"):
        assert GIT is not None
        subprocess.run([GIT, "config", "core.ignoreCase", setting], cwd=repo, check=True)
        assert ignore_case(str(repo)) is (setting == "true")
        by_git = git_ignored(repo, asked, ())
        assert {p for p in asked if is_ignored(repo, p) == SkipReason.GITIGNORE} == by_git
    assert by_git == {p for p, yes in asked.items() if yes}
    assert walked(repo)["t0/A.LOG"] == "ignored by .gitignore"


@pytest.mark.parametrize(("config", "expected"), [
    (b"[core]\n\tignorecase = true\n", True),
    (b"[Core]\n  ignoreCase=TRUE ; a comment\n", True),
    (b"[core]\n\tignorecase\n", True),  # a bare key is true in git
    (b"[core]\n\tignorecase =\n", False),  # and an empty value false
    (b"[core]\n\tignorecase = true\n\tignorecase = false\n", False),  # the last one wins
    (b"[core]\n\tignorecaseX = true\n", False),
    (b"[user]\n\tignorecase = true\n[core]\n\tbare = false\n", False),
    (b"[core]\r\n\tignorecase = yes\r\n", True),
    (b"", False),
])
def test_the_root_git_config_is_read_for_ignorecase(tmp_path: Path, config: bytes,
                                                    expected: bool) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_bytes(config)
    assert ignore_case(str(tmp_path)) is expected


def test_a_worktree_reads_its_common_config(tmp_path: Path) -> None:
    common = tmp_path / "main" / ".git"
    (common / "worktrees" / "wt").mkdir(parents=True)
    (common / "config").write_bytes(b"[core]\n\tignoreCase = true\n")
    (common / "worktrees" / "wt" / "commondir").write_text("../..\n")
    tree = tmp_path / "wt"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {common / 'worktrees' / 'wt'}\n")
    assert ignore_case(str(tree)) is True
    assert ignore_case(str(tmp_path / "nowhere")) is False


@needs_git
@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])
@given(st.lists(cases(), min_size=25, max_size=25))
def test_random_patterns_agree_with_git_under_ignorecase(
        tmp_path_factory: pytest.TempPathFactory, batch: list[tuple[bytes, list[str]]]) -> None:
    """As test_ignore's random patterns, with the patterns of every other case and the
    paths of the others in upper case, in a repository with `core.ignoreCase` set."""
    repo = make_repo(tmp_path_factory.mktemp("folded"))
    assert GIT is not None
    subprocess.run([GIT, "config", "core.ignoreCase", "true"], cwd=repo, check=True)
    asked = []
    for n, (lines, paths) in enumerate(batch):
        if n % 2:
            lines = lines.upper()
        else:
            paths = [p.upper() for p in paths]
        asked += [f"c{n}/{path}" for path in build_case(repo / f"c{n}", lines, paths)]
    ignored = git_ignored(repo, asked, ())
    ours = {path: is_ignored(repo, path) is SkipReason.GITIGNORE for path in asked}
    assert ours == {path: path in ignored for path in asked}
