"""Ignore patterns (ingest/wildmatch.py, ingest/ignore.py): git's meaning, checked against
git itself, and matched in time linear in the path, whatever the pattern (#26)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semlith.ingest.ignore import parse_ignore
from semlith.ingest.walk import SkipReason, is_ignored
from semlith.ingest.wildmatch import compile_rule
from tests.ingest.ignore_util import (
    build_case,
    build_table,
    cases,
    decision,
    git_ignored,
    make_repo,
    needs_git,
)

# (line, path, whether the line matches the path itself); a folder's path ends with "/".
TABLE = [
    ("*.log", "a.log", True), ("*.log", "src/deep/a.log", True), ("*.log", "a.log/", True),
    ("*.log", "a.logx", False), ("*.log", ".log", True),
    ("build/", "build/", True), ("build/", "build", False), ("build/", "src/build/", True),
    ("/build", "build", True), ("/build", "src/build", False), ("/build/", "build/", True),
    ("doc/frotz", "doc/frotz", True), ("doc/frotz", "a/doc/frotz", False),  # anchored
    ("doc/frotz/", "doc/frotz/", True), ("frotz/", "a/b/frotz/", True),
    ("**/foo", "foo", True), ("**/foo", "a/b/foo", True), ("**/foo/bar", "x/foo/bar", True),
    ("**/foo/bar", "foo/x/bar", False),
    ("abc/**", "abc/x", True), ("abc/**", "abc/x/y/", True),
    ("abc/**", "abc/", False),  # everything inside, not the folder itself
    ("a/**/b", "a/b", True), ("a/**/b", "a/x/b", True), ("a/**/b", "a/x/y/b", True),
    ("a/**/b", "a/xb", False), ("a/**/b", "ab", False),
    ("a/**b", "a/xb", True), ("a/**b", "a/x/b", False),  # not between slashes: a plain *
    ("a**/b", "a/b", True), ("a**/b", "ab/b", True), ("a**/b", "ab", True),  # git's quirk:
    ("a**/b", "ax/y/b", True), ("x/ab**", "x/ab", True),  # after the leading literals
    ("x/**\\/b", "x/b", False), ("x/**\\/b", "x/q/b", True),  # before "\/": one folder
    ("b**//", "b/", True),  # one trailing slash is stripped; "**/" then matches nothing
    ("/**", "a/b", True), ("**", "a/b/", True), ("**/", "a/", True), ("**/", "a", False),
    ("a/*", "a/b", True), ("a/*", "a/", False), ("a/*/c", "a/b/c", True),
    ("a/*/c", "a/c", False),
    ("a?c", "abc", True), ("a?c", "a/c", False), ("a*c", "a/c", False), ("a*c", "ac", True),
    ("?", "é", False), ("??", "é", True), ("[é]", "é", False),  # git compares bytes
    ("a[/]c", "a/c", False), ("a[a/b]c", "abc", True), ("a[a/b]c", "a/c", False),
    ("[!a]", "b", True), ("[!a]", "a", False), ("[^a]", "b", True),
    ("[]a]", "]", True), ("[!]a]", "b", True), ("[!]a]", "]", False),
    ("[a-c-e]", "-", True), ("[a-c-e]", "e", True), ("[a-c-e]", "d", False),
    ("[\\]]", "]", True), ("[a\\-c]", "b", False), ("[a\\-c]", "-", True),
    ("[[:alpha:]]", "Q", True), ("[[:alpha:]]", "1", False), ("[[:digit:]x]", "x", True),
    ("x[[:space:]]", "x\t", True), ("x[[:space:]]", "x\x0b", False),  # git's isspace
    ("x[[:punct:]]", "x.", True), ("x[[:upper:]]", "xa", False),
    ("[[:foo:]]", "f", False), ("[[:foo:]]", "[", False),  # unknown class: never matches
    ("x[[:a]", "x:", True), ("x[[:a]", "x[", True),  # no ":]": "[" is just a member
    ("a[", "a[", False), ("a[b", "a[b", False),  # an unclosed "[" never matches
    ("\\#a", "#a", True), ("\\!a", "!a", True), ("a\\*", "a*", True), ("a\\*", "ab", False),
    ("a\\", "a", False), ("a\\", "a\\", False),  # a trailing backslash never matches
    ("\\a", "a", True), ("//a", "a", False), ("a//b", "a/b", False),
]


@pytest.mark.parametrize(("line", "path", "expected"), TABLE)
def test_patterns_mean_what_they_mean_to_git(line: str, path: str, expected: bool) -> None:
    rule = compile_rule(line.encode())
    assert (rule is not None and bool(rule[0].search(path.encode()))) is expected


def test_negation_reincludes_and_only_the_last_matching_line_counts() -> None:
    rules = parse_ignore(b"*.log\n!keep*.log\nkeep-not.log\n")
    assert [decision(rules, p) for p in ("a.log", "keep.log", "keep-not.log", "a.txt")] == [
        True, False, True, None]


# An ignore file's bytes, and what git decides for each path with it (checked with git).
LINES = (b"\xef\xbb\xbf# a comment\r\n\r\n   \n\\#hash\r\n\\!bang\ntrail   \nkept\\ \n"
         b"two\\\\  \nnul\0ignored\n!trail\n#\n*.x")
LINE_CASES = {"#hash": True, "!bang": True, "trail": False, "kept ": True, "kept": None,
              "two\\": True, "nul": True, "nulignored": None, "a.x": True, "# a comment": None}


def test_lines_are_read_as_git_reads_them() -> None:
    """BOM, CRLF, comments, escaped "#" and "!", trailing spaces (kept when escaped), NUL."""
    rules = parse_ignore(LINES)
    assert {path: decision(rules, path) for path in LINE_CASES} == LINE_CASES
    assert parse_ignore(b"!\n\\\n/\n\n   \n[\n") == ()  # git can never match these


# -- git as the oracle -------------------------------------------------------------------

@needs_git
def test_the_table_and_the_line_rules_agree_with_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    asked = build_table(repo, TABLE)
    build_case(repo / "lines", LINES, [p for p in LINE_CASES if not p.startswith("#")])
    asked |= {f"lines/{p}": bool(v) for p, v in LINE_CASES.items() if not p.startswith("#")}
    ignored = git_ignored(repo, asked)
    assert {path: path in ignored for path in asked} == asked


CLASS_NAMES = ["alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
               "space", "upper", "xdigit"]


@needs_git
def test_posix_classes_agree_with_git_on_every_ascii_byte(tmp_path: Path) -> None:
    """Paths need not exist for a pattern that is not folders-only. Each name starts with
    "x": git reads a path "." or starting with ":" as a pathspec, not a name."""
    repo = make_repo(tmp_path / "repo")
    names = ["x" + chr(byte) for byte in range(1, 128) if chr(byte) != "/"]
    for name in CLASS_NAMES:
        (repo / name).mkdir()
        (repo / name / ".gitignore").write_text(f"x[[:{name}:]]\n")
    ignored = git_ignored(repo, [f"{cls}/{name}" for cls in CLASS_NAMES for name in names])
    for cls in CLASS_NAMES:
        rule = compile_rule(f"x[[:{cls}:]]".encode())
        assert rule is not None
        ours = {name for name in names if rule[0].search(name.encode())}
        assert ours == {name for name in names if f"{cls}/{name}" in ignored}, cls


@needs_git
@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture, HealthCheck.data_too_large])
@given(st.lists(cases(), min_size=25, max_size=25))
def test_random_patterns_agree_with_git(tmp_path_factory: pytest.TempPathFactory,
                                        batch: list[tuple[bytes, list[str]]]) -> None:
    """25 ignore files per git call, each in its own folder; every file and folder of the
    tree is judged by `is_ignored` (the walk's rules) and by git."""
    repo = make_repo(tmp_path_factory.mktemp("oracle"))
    asked = [f"c{n}/{path}" for n, (lines, paths) in enumerate(batch)
             for path in build_case(repo / f"c{n}", lines, paths)]
    ignored = git_ignored(repo, asked)
    ours = {path: is_ignored(repo, path) is SkipReason.GITIGNORE for path in asked}
    assert ours == {path: path in ignored for path in asked}


# -- hostile patterns: linear time ------------------------------------------------------

# Hostile patterns, each with paths it matches (long and deep ones too); none of them
# matches a path without a "b".
_DEEP = "/".join(["a" * 200] * 20) + "/"
HOSTILE = [
    ("*a*a*a*a*a*a*a*a*a*a*a*b", ["a" * 11 + "b", _DEEP + "a" * 200 + "b"]),  # issue #26
    ("**/*a*a*a*a*a*a*a*a*a*a*b", ["x/" + "a" * 10 + "b", _DEEP + "a" * 10 + "b/"]),
    ("a/**/a/**/a/**/a/**/a/**/a/**/b", ["a/a/a/a/a/a/b", "a/" * 2000 + "b"]),
    ("**/**/**/**/**/**/**/**/b", ["b", "a/" * 2000 + "b"]),
    ("*[ab]*[!b]*?*[[:alpha:]]*a*a*a*a*a*b", ["a" * 10 + "b", "a" * 4000 + "b"]),
    ("a**a**a**a**a**a**a**a**b", ["a" * 8 + "b", _DEEP + "a" * 200 + "b"]),
    ("*a" * 100 + "*b", ["a" * 100 + "b", "a" * 4000 + "b"]),
    ("/".join(["*a*a*a*b"] * 6), ["/".join(["aaab"] * 6), "/".join(["a" * 200 + "b"] * 6)]),
    ("**/a*a*a*a*/**/a*a*a*b", ["aaaa/aaab", _DEEP + "aaab"]),
    ("?*?*?*?*?*?*?*?*?*?*?*b", ["a" * 11 + "b", "a" * 4000 + "b/"]),
]
LONG_PATHS = ["a" * 200, "a" * 4000, "/".join(["a"] * 2000), "/".join(["a" * 20] * 200),
              "/".join(["a" * 200] * 20)]


def run_guarded(code: str, stdin: str = "", timeout: float = 120) -> Any:
    """Run `code` in a fresh interpreter and return what it prints (JSON). A regex that
    backtracks holds the GIL, so nothing in this process could stop it: a child can be
    killed, and a matcher that hangs fails here instead of hanging the test run."""
    try:
        done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True,
                              text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still matching after {timeout} s: the ignore matcher backtracks (#26)")
    return json.loads(done.stdout)


_TIME_MATCHES = """
import json, sys, time
from semlith.ingest.wildmatch import compile_rule
answers, slowest = [], 0.0
for pattern, path in json.load(sys.stdin):
    regex, _ = compile_rule(pattern.encode())
    start = time.perf_counter()
    answers.append(bool(regex.search(path.encode())))
    slowest = max(slowest, time.perf_counter() - start)
print(json.dumps({"answers": answers, "slowest": slowest}))
"""


def test_hostile_patterns_match_long_paths_in_linear_time() -> None:
    long_paths = [*LONG_PATHS, *(path + "/" for path in LONG_PATHS)]
    cases = [(pattern, path, False) for pattern, _ in HOSTILE for path in long_paths]
    cases += [(pattern, path, True) for pattern, paths in HOSTILE for path in paths]
    result = run_guarded(_TIME_MATCHES, json.dumps([case[:2] for case in cases]))
    assert result["answers"] == [expected for _, _, expected in cases]
    # A hang guard, not a benchmark: the old matcher never finished the first pattern.
    assert result["slowest"] < 1.0, result["slowest"]


_WALK = """
import json, sys
from pathlib import Path
from semlith.ingest.walk import is_ignored, walk_files
root = Path(sys.argv[1])
walked = {item.rel: getattr(item, "reason", None) for item in walk_files(root)}
print(json.dumps({"walk": walked, "is_ignored": {rel: is_ignored(root, rel)
                                                 for rel in sys.argv[2:]}}))
"""


def test_the_walk_and_the_watcher_finish_with_a_hostile_gitignore(tmp_path: Path) -> None:
    """Issue #26 as reported: the walk, and `is_ignored` (the watcher's check) for an
    existing and a new path, with names of 200 "a"s in a tree 15 folders deep."""
    (tmp_path / ".gitignore").write_text("*a*a*a*a*a*a*a*a*a*a*a*b\n")
    deep = "d/" + "/".join(["a" * 200] * 15)  # 3 kB: within PATH_MAX
    for rel in ("a" * 200, "a" * 11 + "b", f"{deep}/{'a' * 200}", f"{deep}/{'a' * 30}b"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    asked = ["a" * 200, f"{deep}/{'a' * 30}b", f"{deep}/new-{'a' * 200}", f"{deep}/{'a' * 20}b"]
    code = _WALK.replace("sys.argv[1]", repr(str(tmp_path))).replace("sys.argv[2:]",
                                                                     repr(asked))
    result = run_guarded(code)
    assert result["walk"] == {
        ".gitignore": "hidden", "a" * 200: None, "a" * 11 + "b": "ignored by .gitignore",
        f"{deep}/{'a' * 200}": None, f"{deep}/{'a' * 30}b": "ignored by .gitignore"}
    assert list(result["is_ignored"].values()) == [None, "ignored by .gitignore", None,
                                                   "ignored by .gitignore"]
