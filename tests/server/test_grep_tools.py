"""grep through the daemon (issues #23, #47): semlith_search's exact and regex modes,
/api/grep, and the MCP answer's lines with names escaped."""

from __future__ import annotations

import re

from semlith.server import answers
from semlith.types.grep import Enclosing, Match, Matches
from tests.server_util import Served, call_tool, served  # noqa: F401 - the module fixture

# A newline would forge a line of its own, a carriage return or ESC rewrite the terminal,
# U+202E show the name reversed: each prints as its escape, as `semlith_files` does.
ODD_NAMES = {"a\nb.py:9:forged.txt": "a\\nb.py:9:forged.txt", "c\rd.txt": "c\\rd.txt",
             "e\x1b[2Jf.txt": "e\\x1b[2Jf.txt", "g\u202etxt.exe": "g\\u202etxt.exe"}


def test_mcp_grep_answers_print_names_escaped() -> None:
    found = Matches(tuple(Match("proj", name, 1, "needle", definition=Enclosing(
        "function", "f\u202eg", 1, 2)) for name in ODD_NAMES),
        tuple(f"proj:{name}" for name in ODD_NAMES), stores=("proj",),
        counts=(1,) * len(ODD_NAMES))
    lines = answers.matches(found, 2000).splitlines()
    assert sorted(lines) == sorted([f"{name}:1:needle" for name in ODD_NAMES.values()] +
                                   [f"{name}=1=function f\\u202eg"
                                    for name in ODD_NAMES.values()])
    listed = answers.matches(found, 2000, files_only=True).splitlines()
    assert sorted(listed) == sorted(ODD_NAMES.values())


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
    text, failed = call_tool(served, "semlith_search", {"query": r"(a)\1", "mode": "regex"})
    assert failed and "a backreference" in text and "\n" not in text


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
