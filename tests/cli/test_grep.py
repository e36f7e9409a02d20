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

from semlith.base.settings import Settings
from semlith.local import LocalLibrary, grep
from semlith.local.grep import compile_pattern, enclosing
from semlith.types import Definition, Filters, Scope
from semlith.types.grep import Enclosing, Match, Matches
from tests.cli_util import run, tree  # noqa: F401 - the indexed sample
from tests.conftest import HashEmbedder
from tests.secret_fixtures import assert_nothing_leaks, fakes, write_secret_tree
from tests.server_util import Served, call_tool, served  # noqa: F401 - the module fixture

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


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(\w*)*x", r"(a|b?)+c", r"(x)\1",
                                     r"(?:a{1,3}){20,}"])
def test_catastrophic_patterns_are_refused_in_one_line(tree: Path, pattern: str) -> None:  # noqa: F811
    result = run("search", "--regex", pattern)
    assert result.exit_code == 1
    assert len(result.output.strip().splitlines()) == 1 and "refused" in result.output


def test_a_slow_pattern_stops_the_search_and_says_where(tree: Path,  # noqa: F811
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grep, "FILE_BUDGET", 0.2)
    (tree / "long.txt").write_text(("a" * 3000 + " ") * 3 + "\nneedle\n")
    run("index", "--quiet")
    assert _cli("--exact", "needle") == {"long.txt:2:needle"}
    # polynomial backtracking the refusal lets through: minutes on one such line
    result = run("search", "--regex", r"a*a*a*[bc]", "--path", "long.txt")
    assert result.exit_code == 1 and result.stdout == ""
    assert "stopped at proj:long.txt:1: the pattern took over 0.2 s" in result.stderr


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
    assert compile_pattern("(", False).search("f(x)")
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


# -- the MCP tool: semlith_search's mode ----------------------------------------------

def test_semlith_search_exact_and_regex_modes(served: Served) -> None:  # noqa: F811
    text, failed = call_tool(served, "semlith_search",
                              {"query": "class RetryPolicy", "mode": "exact"})
    assert not failed and text.splitlines() == ["net/retry.py=7=class RetryPolicy",
                                                "net/retry.py:7:class RetryPolicy:"]
    text, failed = call_tool(served, "semlith_search",
                              {"query": r"def \w+\(", "mode": "regex", "ext": "py"})
    lines = [line for line in text.splitlines() if line]
    assert not failed and lines
    assert all(re.match(r"^[^:=]+\.py[:=]\d+[:=]", line) for line in lines)
    assert "net/retry.py=15=method RetryPolicy.delay" in lines
    text, failed = call_tool(served, "semlith_search",
                              {"query": "no line holds this", "mode": "exact"})
    assert not failed and text == "No line matches."
    text, failed = call_tool(served, "semlith_search", {"query": "(a+)+", "mode": "regex"})
    assert failed and "refused" in text and "\n" not in text


def test_semlith_search_exact_mode_takes_context_and_a_files_format(
        served: Served) -> None:  # noqa: F811
    text, failed = call_tool(served, "semlith_search",
                              {"query": "class RetryPolicy", "mode": "exact", "context": 1})
    lines = text.splitlines()
    assert not failed and "net/retry.py:7:class RetryPolicy:" in lines
    assert any(line.startswith("net/retry.py-8-") for line in lines)  # rg's context line
    assert any(line.startswith("net/retry.py-6-") for line in lines)
    text, failed = call_tool(served, "semlith_search",
                              {"query": r"def \w+\(", "mode": "regex", "format": "files"})
    paths = text.splitlines()
    assert not failed and "net/retry.py" in paths and all(":" not in p for p in paths)
    assert len(paths) == len(set(paths))
    text, failed = call_tool(served, "semlith_search",
                              {"query": "retry delay", "format": "files"})
    assert not failed and text.splitlines()[0].endswith(".py")
    text, failed = call_tool(served, "semlith_search",
                              {"query": "class RetryPolicy", "mode": "exact", "context": 11})
    assert not failed and "context" in text.splitlines()[-1]  # clamped to 10, and said


def test_semlith_search_exact_mode_stays_within_max_tokens(served: Served) -> None:  # noqa: F811
    text, failed = call_tool(served, "semlith_search",
                              {"query": "e", "mode": "exact", "max_tokens": 100})
    assert not failed and len(text) // 4 <= 100 + 40  # the lines, and the note saying so
    assert "more matching lines here" in text and "raise max_tokens" in text


def test_the_api_takes_before_after_and_count(served: Served) -> None:  # noqa: F811
    def grep(**body: object) -> Matches:
        answer = served.client.post("/api/grep", json={"pattern": "delay", **body},
                                    headers=served.api)
        assert answer.status_code == 200, answer.text
        return Matches.from_json(answer.json())

    shaped = grep(before=2, after=0, context=5)
    assert shaped.matches and all(len(m.after) == 0 and len(m.before) == min(2, m.line - 1)
                                  for m in shaped.matches)
    assert {m.definition.name for m in shaped.matches if m.definition} >= {
        "RetryPolicy.delay"}
    counted = grep(count=True)
    assert counted.matches == () and counted.files == ("proj:net/retry.py",)
    assert counted.counts == (len(grep().matches),)
