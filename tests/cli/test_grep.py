"""Exact and regex search (`search --exact/--regex`, `Library.grep`; issues #23, #24):
the same lines as a reference grep (and ripgrep, where installed) over the same files,
bounded, refusing catastrophic patterns, serving only what `read` serves."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.local import LocalLibrary, grep
from semlith.local.grep import compile_pattern, enclosing
from semlith.types import Definition, Filters, Scope
from semlith.types.grep import Enclosing, Match, Matches
from tests.cli_util import run, tree  # noqa: F401 - the indexed sample
from tests.conftest import HashEmbedder
from tests.secret_fixtures import assert_nothing_leaks, fakes, write_secret_tree

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample"
PATTERNS = [("retry", False), ("def ", False), ("(", False), (r"\bclass\s+\w+", True),
            (r"^\s*(import|from)\b", True), (r"[Tt]oken", True)]


def _reference(root: Path, pattern: str, regex: bool, suffix: str = "",
               context: tuple[int, int] = (0, 0)) -> set[str]:
    """`path:line:text` of every matching line of the indexed sample files, by hand, and
    `path-line-text` for the `context` (before, after) lines around them."""
    compiled = re.compile(pattern if regex else re.escape(pattern))
    found = set()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and ".semlith" not in p.parts):
        rel = path.relative_to(root).as_posix()
        if not rel.endswith(suffix):
            continue
        lines = path.read_text().removesuffix("\n").split("\n")
        hits = {n for n, line in enumerate(lines, start=1) if compiled.search(line)}
        for n in hits:
            found.add(f"{rel}:{n}:{lines[n - 1]}")
            for near in range(max(1, n - context[0]), min(len(lines), n + context[1]) + 1):
                if near not in hits:
                    found.add(f"{rel}-{near}-{lines[near - 1]}")
    return found


def _cli(*args: str) -> set[str]:
    """The lines `search ARGS` prints, without its definition lines (ripgrep has none)."""
    result = run("search", *args, "--limit", "10000", "--no-definitions")
    assert result.exit_code in (0, 1), result.output
    return {line for line in result.output.splitlines() if line and line != "--"}


def _rg(root: Path, *args: str) -> set[str]:
    rg = subprocess.run(["rg", "--no-heading", "-n", "--no-config", "-g", "!.semlith",
                         "--color", "never", *args, "."],
                        cwd=root, capture_output=True, text=True, check=False)
    assert rg.returncode in (0, 1), rg.stderr
    return {line.removeprefix("./") for line in rg.stdout.splitlines() if line != "--"}


@pytest.mark.parametrize(("pattern", "regex"), PATTERNS)
def test_the_same_lines_as_a_reference_grep(tree: Path, pattern: str, regex: bool) -> None:  # noqa: F811
    flag = "--regex" if regex else "--exact"
    assert _cli(flag, pattern) == _reference(tree, pattern, regex)
    assert _cli(flag, pattern, "--ext", "py") == _reference(tree, pattern, regex, ".py")


NO_RG = pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")


@NO_RG
@pytest.mark.parametrize(("pattern", "regex"), PATTERNS)
def test_the_same_lines_as_ripgrep(tree: Path, pattern: str, regex: bool) -> None:  # noqa: F811
    expected = _rg(tree, *([] if regex else ["-F"]), "--", pattern)
    assert _cli("--regex" if regex else "--exact", pattern) == expected


# Only where ripgrep 13 and 14 agree: 13 lets the last of -A/-B/-C win, 14 (like GNU
# grep and semlith) lets -A and -B override -C whatever the order.
CONTEXTS = [("-A", "2"), ("-B", "3"), ("-A", "1", "-B", "2"), ("-C", "1"),
            ("--after-context", "4", "--before-context", "1")]


@NO_RG
def test_the_same_context_and_counts_as_ripgrep(tree: Path) -> None:  # noqa: F811
    for pattern, regex in PATTERNS:  # one index for every case: it is the slow part
        flag, literal = ("--regex" if regex else "--exact"), [] if regex else ["-F"]
        for context in CONTEXTS:
            expected = _rg(tree, *context, *literal, "-g", "*.py", "--", pattern)
            assert _cli(flag, pattern, *context, "--ext", "py") == expected, context
        expected = _rg(tree, "--count", *literal, "--", pattern)
        assert _cli(flag, pattern, "--count") == expected
        assert _cli(flag, pattern, "-c", "--path", "net/") == {
            line for line in expected if line.startswith("net/")}


# (semlith's arguments, ripgrep's) for the same search
SAME = [(["--exact", "retry"], ["-F", "retry"]), (["--regex", r"def \w+"], [r"def \w+"]),
        (["--exact", "retry", "-A", "2"], ["-F", "-A", "2", "retry"]),
        (["--regex", "^$", "-B", "1"], ["-B", "1", "^$"]),
        (["--regex", r"(?i)RETRY|token", "-C", "1"], ["-C", "1", r"(?i)RETRY|token"]),
        (["--exact", "retry", "-A", "1", "-B", "0"], ["-F", "-A", "1", "retry"]),
        (["--regex", r"\bimport\b", "-l"], ["-l", r"\bimport\b"]),
        (["--regex", "[Tt]oken", "-c"], ["-c", "[Tt]oken"]),
        (["--exact", "no line holds this"], ["-F", "no line holds this"])]


@NO_RG
def test_without_definitions_the_output_is_ripgrep_s_byte_for_byte(tree: Path) -> None:  # noqa: F811
    (tree / "net.py").write_text("retry = 1\n")  # after net/ in ripgrep's path order
    (tree / "notes.txt").write_text("first retry\n\nlast retry")  # no newline at the end
    assert run("index", "--quiet").exit_code == 0
    for ours, theirs in SAME:
        result = run("search", *ours, "--no-definitions", "--limit", "10000")
        rg = subprocess.run(["rg", "--no-heading", "-n", "--no-config", "--sort", "path",
                             "-g", "!.semlith", "--color", "never", *theirs, "--", "."],
                            cwd=tree, capture_output=True, text=True, check=False)
        assert (result.exit_code, result.stdout) == (
            rg.returncode, re.sub(r"(?m)^\./", "", rg.stdout)), ours


# A newline would forge a line of its own, a carriage return or ESC rewrite the terminal,
# U+202E show the name reversed (issue #47): each prints as its escape, as `files` does.
ODD_NAMES = {"a\nb.py:9:forged.txt": "a\\nb.py:9:forged.txt", "c\rd.txt": "c\\rd.txt",
             "e\x1b[2Jf.txt": "e\\x1b[2Jf.txt", "g\u202etxt.exe": "g\\u202etxt.exe"}


@pytest.mark.skipif(sys.platform == "win32", reason="such names cannot be made on Windows")
def test_names_print_escaped_on_one_line(tree: Path) -> None:  # noqa: F811
    for name in ODD_NAMES:
        (tree / name).write_text("needle\n")
    assert run("index", "--quiet").exit_code == 0
    shown = sorted(ODD_NAMES.values())
    text = run("search", "--exact", "needle", "--no-definitions").stdout
    assert sorted(text.splitlines()) == [f"{name}:1:needle" for name in shown]
    assert sorted(run("search", "--exact", "needle", "-l").stdout.splitlines()) == shown
    assert sorted(run("search", "--exact", "needle", "-c").stdout.splitlines()) == [
        f"{name}:1" for name in shown]
    for out in (text, run("search", "--exact", "needle", "-C", "1").stdout):
        assert not set(out) & {"\r", "\x1b", "\u202e"} and out.count("\n") == len(out.splitlines())
    data = json.loads(run("search", "--exact", "needle", "--json").stdout)
    assert sorted(m["path"] for m in data["matches"]) == sorted(ODD_NAMES)  # JSON: as is


# What a grep from a fresh CLI must not import (issue #45: start-up is part of its
# budget): the model's, the ranking's, the graph's, the daemon's, Milvus' and the vectors'
# modules (numpy).
NOT_FOR_GREP = ("semlith.embed", "semlith.search", "semlith.ranking", "semlith.graph",
                "semlith.index.indexer", "semlith.remote", "semlith.store.milvus",
                "semlith.cli.daemon", "semlith.cli.index", "onnxruntime", "fastembed",
                "tree_sitter", "mcp", "starlette", "uvicorn", "pydantic", "numpy", "turbovec",
                "semlith.store.vectors", "semlith.ingest.graph.extract", "semlith.ingest.plan",
                "semlith.store.graph", "semlith.store.edges", "importlib.metadata",
                "semlith.ingest.walk")


def test_a_grep_from_a_fresh_cli_imports_only_what_it_needs(tree: Path) -> None:  # noqa: F811
    code = ("import sys\nfrom semlith.cli import main\n"
            "try:\n    main(['search', '--exact', 'RetryPolicy', '-c'])\n"
            "except SystemExit as exit:\n    assert exit.code == 0, exit.code\n"
            "print('\\n'.join(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True,
                          text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.splitlines()
    assert "net/retry.py:" in loaded[0] and "semlith.local.grep" in loaded
    assert [m for m in loaded if m.startswith(NOT_FOR_GREP)] == []


def test_after_and_before_override_context_on_their_side(tree: Path) -> None:  # noqa: F811
    for args, sides in [(("-C", "2", "-A", "0"), (2, 0)), (("-B", "0", "-C", "3"), (0, 3))]:
        assert _cli("--exact", "retry", *args) == _reference(tree, "retry", False,
                                                            context=sides)


def test_context_files_only_and_json(tree: Path) -> None:  # noqa: F811
    lines = (tree / "net/retry.py").read_text().split("\n")
    n = next(i for i, line in enumerate(lines, 1) if "class RetryPolicy" in line)
    out = run("search", "--exact", "class RetryPolicy", "-C", "1").output.splitlines()
    assert out == [f"net/retry.py={n}=class RetryPolicy",
                   f"net/retry.py-{n - 1}-{lines[n - 2]}", f"net/retry.py:{n}:{lines[n - 1]}",
                   f"net/retry.py-{n + 1}-{lines[n]}"]
    paths = run("search", "--regex", "[Tt]oken", "-l").output.split()
    assert paths == sorted({line.split(":")[0] for line in _reference(tree, "[Tt]oken", True)})
    data = json.loads(run("search", "--exact", "class RetryPolicy", "--json").output)
    assert data["files"] == ["proj:net/retry.py"] and data["matches"][0]["line"] == n


def _defs(root: Path, rel: str) -> list[tuple[int, int, str]]:
    """(start, end, "kind qualname") of a file's definitions, from `semlith symbol`."""
    out = []
    for name in re.findall(r"(?:def|class)\s+(\w+)", (root / rel).read_text()):
        for d in json.loads(run("symbol", name, "--json").output):
            if d["path"] == rel:
                out.append((d["start_line"], d["end_line"], f"{d['kind']} {d['qualname']}"))
    return out


def test_each_match_names_its_innermost_definition(tree: Path) -> None:  # noqa: F811
    defs = set(_defs(tree, "net/retry.py"))
    assert {label for *_, label in defs} >= {"class RetryPolicy", "method RetryPolicy.delay"}
    data = json.loads(run("search", "--regex", r"self\.|import|policy", "--path",
                          "net/retry.py", "--json").output)
    for m in data["matches"]:
        around = [d for d in defs if d[0] <= m["line"] <= d[1]]
        if not around:
            assert m["definition"] is None, m
            continue
        inner = max(around, key=lambda d: (d[0], -d[1]))
        assert m["definition"]["start_line"] == inner[0], m
        assert f"{m['definition']['kind']} {m['definition']['name']}" == inner[2]
        assert all(m["text"][a:b] for a, b in m["spans"]) and m["spans"]
    assert any(m["definition"] is None for m in data["matches"])  # the imports
    # Text: each definition's line once, before the first of its matches in the file.
    out = run("search", "--regex", r"self\.", "--path", "net/retry.py").output.splitlines()
    labels = [line for line in out if re.match(r"^net/retry\.py=\d+=", line)]
    assert labels == sorted(set(labels), key=labels.index)
    assert labels == ["net/retry.py=10=method RetryPolicy.__init__",
                      "net/retry.py=15=method RetryPolicy.delay"]
    assert out.index(labels[1]) == out.index(next(line for line in out
                                                  if line.startswith("net/retry.py:1") and
                                                  int(line.split(":")[1]) >= 15)) - 1
    docs = run("search", "--exact", "Deployment").output.splitlines()
    assert docs[0] == "docs/deployment.md=1=section Deployment"


def test_the_innermost_definition_of_each_line_in_one_pass() -> None:
    defs = [Definition("", "a.py", start, end, kind, name, name, "")
            for start, end, kind, name in [(1, 20, "class", "A"), (3, 5, "method", "A.f"),
                                           (7, 12, "method", "A.g"), (8, 9, "function", "h"),
                                           (8, 8, "section", "same start, shorter"),
                                           (22, 30, "function", "k")]]
    found = enclosing(defs, [1, 4, 6, 8, 9, 10, 13, 21, 25, 31])
    assert [e.name if e else None for e in found] == [
        "A", "A.f", "A", "same start, shorter", "h", "A.g", "A", None, "k", None]
    assert found[1] == Enclosing("method", "A.f", 3, 5)
    assert enclosing([], [1, 2]) == [None, None]


def test_a_file_changed_since_indexing_names_no_definition(tree: Path) -> None:  # noqa: F811
    path = tree / "net/retry.py"
    path.write_text("\n\n" + path.read_text())  # every definition two lines further now
    data = json.loads(run("search", "--exact", "def delay", "--json").output)
    assert [m["definition"] for m in data["matches"]] == [None]
    assert data["matches"][0]["line"] == 17  # the lines are the file's own, as read serves


def test_the_limit_counts_what_it_left_out(tree: Path) -> None:  # noqa: F811
    every = _reference(tree, "e", False)
    result = run("search", "--exact", "e", "--limit", "5", "--no-definitions")
    assert result.exit_code == 0
    shown = [line for line in result.stdout.splitlines() if line]
    assert len(shown) == 5 and set(shown) <= every
    files_shown = {line.split(":")[0] for line in shown}
    files_left = {m.split(":")[0] for m in every} - files_shown
    partly = len({m.split(":")[0] for m in every - set(shown)} & files_shown)
    assert (f"{len(every) - 5} more matches in {len(files_left) + partly} files not shown"
            in result.stderr)


def test_nothing_found_exits_1_without_error_text(tree: Path) -> None:  # noqa: F811
    result = run("search", "--exact", "no line holds this")
    assert result.exit_code == 1 and result.output == ""


# What backtracking engines take seconds or years over (#47): RE2 answers them at once.
BACKTRACKERS = [r"(a|aa)+$", r"(a{1,16}){1,16}$", r"(a+)+$", r"(\w*)*a$", r"(a|aa)*a$",
                r"(?:a{1,3}){20,}$", r"^a*a*a*a*a*a*$"]


@pytest.mark.parametrize("pattern", BACKTRACKERS)
def test_patterns_that_backtrack_are_answered_within_the_deadline(
        tree: Path, pattern: str) -> None:  # noqa: F811
    # Lines of a's that end the pattern's way and lines that fail it only at their end,
    # where a backtracking engine tries every way of splitting the a's first.
    (tree / "long.txt").write_text("".join(f"{'a' * (3000 + n)}{'!' * (n % 2)}\n"
                                           for n in range(40)))
    run("index", "--quiet")
    result = run("search", "--regex", pattern, "--path", "long.txt", "--count")
    assert result.exit_code == 0, result.output
    assert result.stdout == "long.txt:20\n" and result.stderr == ""  # no "stopped" note


@pytest.mark.parametrize(("pattern", "named"), [
    (r"(x)\1", "a backreference"), (r"(?P<q>')\w+(?P=q)", "a backreference"),
    (r"foo(?=bar)", "a lookahead or lookbehind"), (r"(?<!_)id", "lookbehind"),
    (r"a++", "a possessive quantifier"), (r"(?>ab)c", "an atomic group"),
    (r"(a)?(?(1)b|c)", "a conditional group"), (r"a{1001}", "a repeat count over 1000")])
def test_what_the_linear_engine_cannot_run_is_refused_naming_it(
        tree: Path, pattern: str, named: str) -> None:  # noqa: F811
    result = run("search", "--regex", pattern)
    assert result.exit_code == 1 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0] and "--exact" in lines[0], result.stderr


def test_the_deadline_stops_the_search_and_says_how_far_it_got(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(grep, "TIME_BUDGET", 0.0)
    result = run("search", "--exact", "def ")
    assert result.exit_code == 1 and result.stdout == ""
    assert re.search(r"stopped after 0 s: 0 of \d+ files searched", result.stderr)


def test_a_file_replaced_by_a_link_out_of_the_root_is_not_searched(tree: Path) -> None:  # noqa: F811
    outside = tree.parent / "outside.txt"
    outside.write_text("OUTSIDE the root\n")
    (tree / "net/retry.py").unlink()
    (tree / "net/retry.py").symlink_to(outside)
    assert _cli("--exact", "OUTSIDE") == set()
    assert _cli("--exact", "def ") == _reference(tree, "def ", False)  # the rest still are


def test_matches_cross_the_api_unchanged() -> None:
    found = Matches((Match("proj", "a.py", 3, "x = 1", ("",), ("y",),
                           Enclosing("function", "f", 2, 4), ((0, 1),)),
                     Match("proj", "a.py", 9, "y", ())), ("proj:a.py",),
                    4, 2, ("proj",), "note", ("other: why",), (2,))
    assert Matches.from_json(json.loads(json.dumps(found.as_json()))) == found
    assert found.as_json()["counts"] == {"proj:a.py": 2}
    assert found.more == "4 more matches in 2 files"


def test_bad_patterns_are_usage_errors() -> None:
    for pattern, regex in [("", False), ("(", True)]:
        with pytest.raises(ValueError):
            compile_pattern(pattern, regex)
    assert compile_pattern("(", False).spans("f(x)") == ((1, 2),)
    assert run("search", "--exact", "x", "--regex", "y").exit_code == 2
    assert run("search", "--exact", "x", "-l", "-c").exit_code == 2


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
