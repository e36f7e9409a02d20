"""Exact and regex search (`search --exact/--regex`, `Library.grep`; issues #23, #24):
the same lines as a reference grep (and ripgrep, where installed) over the same files,
bounded, refusing catastrophic patterns, serving only what `read` serves."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from semlith.grep_types import Match, Matches
from semlith.local import LocalLibrary, grep
from semlith.local.grep import compile_pattern
from semlith.settings import Settings
from semlith.types import Filters, Scope
from tests.cli_util import run
from tests.conftest import HashEmbedder
from tests.secret_fixtures import fakes, write_secret_tree
from tests.test_app import Served, _call_tool, served  # noqa: F401 - the module fixture
from tests.test_secrets import assert_nothing_leaks

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "sample"
PATTERNS = [("retry", False), ("def ", False), ("(", False), (r"\bclass\s+\w+", True),
            (r"^\s*(import|from)\b", True), (r"[Tt]oken", True)]


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    monkeypatch.chdir(root)
    assert run("index", str(root), "--quiet").exit_code == 0
    return root


def _reference(root: Path, pattern: str, regex: bool, suffix: str = "") -> set[str]:
    """`path:line:text` of every matching line of the indexed sample files, by hand."""
    compiled = re.compile(pattern if regex else re.escape(pattern))
    found = set()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and ".semlith" not in p.parts):
        rel = path.relative_to(root).as_posix()
        if not rel.endswith(suffix):
            continue
        for n, line in enumerate(path.read_text().split("\n"), start=1):
            if compiled.search(line):
                found.add(f"{rel}:{n}:{line}")
    return found


def _cli(*args: str) -> set[str]:
    result = run("search", *args, "--limit", "10000")
    assert result.exit_code in (0, 1), result.output
    return {line for line in result.output.splitlines() if line and line != "--"}


@pytest.mark.parametrize(("pattern", "regex"), PATTERNS)
def test_the_same_lines_as_a_reference_grep(tree: Path, pattern: str, regex: bool) -> None:
    flag = "--regex" if regex else "--exact"
    assert _cli(flag, pattern) == _reference(tree, pattern, regex)
    assert _cli(flag, pattern, "--ext", "py") == _reference(tree, pattern, regex, ".py")


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
@pytest.mark.parametrize(("pattern", "regex"), PATTERNS)
def test_the_same_lines_as_ripgrep(tree: Path, pattern: str, regex: bool) -> None:
    rg = subprocess.run(["rg", "--no-heading", "-n", "--no-config", "-g", "!.semlith",
                         *([] if regex else ["-F"]), "--", pattern, "."],
                        cwd=tree, capture_output=True, text=True, check=False)
    expected = {line.removeprefix("./") for line in rg.stdout.splitlines()}
    assert _cli("--regex" if regex else "--exact", pattern) == expected


def test_context_files_only_and_json(tree: Path) -> None:
    lines = (tree / "net/retry.py").read_text().split("\n")
    n = next(i for i, line in enumerate(lines, 1) if "class RetryPolicy" in line)
    out = run("search", "--exact", "class RetryPolicy", "-C", "1").output.splitlines()
    assert out == [f"net/retry.py-{n - 1}-{lines[n - 2]}", f"net/retry.py:{n}:{lines[n - 1]}",
                   f"net/retry.py-{n + 1}-{lines[n]}"]
    paths = run("search", "--regex", "[Tt]oken", "-l").output.split()
    assert paths == sorted({line.split(":")[0] for line in _reference(tree, "[Tt]oken", True)})
    data = json.loads(run("search", "--exact", "class RetryPolicy", "--json").output)
    assert data["files"] == ["proj:net/retry.py"] and data["matches"][0]["line"] == n


def test_the_limit_counts_what_it_left_out(tree: Path) -> None:
    every = _reference(tree, "e", False)
    result = run("search", "--exact", "e", "--limit", "5")
    assert result.exit_code == 0
    shown = [line for line in result.stdout.splitlines() if line]
    assert len(shown) == 5 and set(shown) <= every
    files_shown = {line.split(":")[0] for line in shown}
    files_left = {m.split(":")[0] for m in every} - files_shown
    partly = len({m.split(":")[0] for m in every - set(shown)} & files_shown)
    assert (f"{len(every) - 5} more matches in {len(files_left) + partly} files not shown"
            in result.stderr)


def test_nothing_found_exits_1_without_error_text(tree: Path) -> None:
    result = run("search", "--exact", "no line holds this")
    assert result.exit_code == 1 and result.output == ""


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(\w*)*x", r"(a|b?)+c", r"(x)\1",
                                     r"(?:a{1,3}){20,}"])
def test_catastrophic_patterns_are_refused_in_one_line(tree: Path, pattern: str) -> None:
    result = run("search", "--regex", pattern)
    assert result.exit_code == 1
    assert len(result.output.strip().splitlines()) == 1 and "refused" in result.output


def test_a_slow_pattern_stops_the_search_and_says_where(tree: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grep, "FILE_BUDGET", 0.2)
    (tree / "long.txt").write_text(("a" * 3000 + " ") * 3 + "\nneedle\n")
    run("index", "--quiet")
    assert _cli("--exact", "needle") == {"long.txt:2:needle"}
    # polynomial backtracking the refusal lets through: minutes on one such line
    result = run("search", "--regex", r"a*a*a*[bc]", "--path", "long.txt")
    assert result.exit_code == 1 and result.stdout == ""
    assert "stopped at proj:long.txt:1: the pattern took over 0.2 s" in result.stderr


def test_a_file_replaced_by_a_link_out_of_the_root_is_not_searched(tree: Path) -> None:
    outside = tree.parent / "outside.txt"
    outside.write_text("OUTSIDE the root\n")
    (tree / "net/retry.py").unlink()
    (tree / "net/retry.py").symlink_to(outside)
    assert _cli("--exact", "OUTSIDE") == set()
    assert _cli("--exact", "def ") == _reference(tree, "def ", False)  # the rest still are


def test_matches_cross_the_api_unchanged() -> None:
    found = Matches((Match("proj", "a.py", 3, "x = 1", ("",), ("y",)),), ("proj:a.py",),
                    4, 2, ("proj",), "note", ("other: why",))
    assert Matches.from_json(json.loads(json.dumps(found.as_json()))) == found
    assert found.more == "4 more matches in 2 files"


def test_bad_patterns_are_usage_errors() -> None:
    for pattern, regex in [("", False), ("(", True)]:
        with pytest.raises(ValueError):
            compile_pattern(pattern, regex)
    assert compile_pattern("(", False).search("f(x)")
    assert run("search", "--exact", "x", "--regex", "y").exit_code == 2


def test_withheld_files_are_not_searched_and_redactions_stay(tmp_path: Path,
                                                             settings: Settings) -> None:
    root = tmp_path / "shop"
    root.mkdir()
    fake = fakes()
    write_secret_tree(root, fake)
    library = LocalLibrary(settings, embedder_factory=HashEmbedder)
    try:
        library.index([str(root)])
        everywhere = Scope(("*",))
        for secret in fake.all:
            found = library.grep(secret, scope=everywhere)
            assert not found.matches, secret
        assert library.grep("PRIVATE KEY", scope=everywhere).matches == ()
        redacted = library.grep("[REDACTED:", scope=everywhere)
        assert {m.path for m in redacted.matches} >= {"config.py"}
        assert_nothing_leaks(json.dumps(redacted.as_json()))
        # A file that became a key after it was indexed is withheld when read: not searched.
        (root / "config.py").write_text(fake.key)
        assert library.grep("upload_invoice", scope=everywhere).matches == ()
        assert library.grep("PRIVATE", filters=Filters(paths=("config.py",)),
                            scope=everywhere).files == ()
    finally:
        library.close()


# -- the MCP tool: semlith_search's mode ----------------------------------------------

def test_semlith_search_exact_and_regex_modes(served: Served) -> None:  # noqa: F811
    text, failed = _call_tool(served, "semlith_search",
                              {"query": "class RetryPolicy", "mode": "exact"})
    assert not failed and text.startswith("net/retry.py:") and ":class RetryPolicy" in text
    text, failed = _call_tool(served, "semlith_search",
                              {"query": r"def \w+\(", "mode": "regex", "ext": "py"})
    lines = [line for line in text.splitlines() if line]
    assert not failed and lines and all(line.split(":")[0].endswith(".py") for line in lines)
    text, failed = _call_tool(served, "semlith_search",
                              {"query": "no line holds this", "mode": "exact"})
    assert not failed and text == "No line matches."
    text, failed = _call_tool(served, "semlith_search", {"query": "(a+)+", "mode": "regex"})
    assert failed and "refused" in text and "\n" not in text


def test_semlith_search_exact_mode_stays_within_max_tokens(served: Served) -> None:  # noqa: F811
    text, failed = _call_tool(served, "semlith_search",
                              {"query": "e", "mode": "exact", "max_tokens": 100})
    assert not failed and len(text) // 4 <= 100 + 40  # the lines, and the note saying so
    assert "more matching lines here" in text and "raise max_tokens" in text
