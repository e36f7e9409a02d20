"""The line a hit is shown by: chosen once by the searcher (types/shown.py), and the same
in the CLI's excerpt, MCP's `locate` answer and the portal (issue #44)."""

from __future__ import annotations

from pathlib import Path

from semlith.base.settings import Settings
from semlith.cli import output
from semlith.local import LocalLibrary
from semlith.server import answers
from semlith.types import Hit, Scope, from_json
from semlith.types.shown import choose_line, question_words, shown_line
from tests.conftest import HashEmbedder

CHUNK = "\n".join([
    "@cached",                                    # 10
    "def backoff_delay(attempt):",                # 11
    '    """How long to wait before a retry."""',  # 12
    "",                                           # 13
    "    # exponential backoff: base * 2 ** n",   # 14
    "    return BASE * 2 ** attempt",             # 15
])


def chosen(query: str, symbol: str = "backoff_delay") -> int:
    return choose_line(CHUNK, 10, symbol, question_words(query))


def test_the_line_with_most_question_words_is_shown() -> None:
    assert chosen("exponential backoff") == 14
    assert chosen("how long before a retry") == 12  # stopwords do not count
    assert chosen("retry_wait") == 12  # words as the keyword index reads them


def test_the_definition_line_wins_a_tie_and_when_no_line_holds_a_word() -> None:
    assert chosen("backoff") == 11  # lines 11 and 14 hold it: the definition's
    assert chosen("zebra") == 11
    assert chosen("zebra", symbol="") == 10  # no symbol: the first non-blank line
    assert chosen("the") == 11  # a question of stopwords only counts them
    assert choose_line("\n  \n", 7, "x", question_words("x")) == 7


def hit(line: int) -> Hit:
    return Hit("s", "net/retry.py", 10, 15, 1.0, CHUNK, "backoff_delay", "function",
               0.8, line)


def test_an_older_daemon_s_hit_shows_its_first_non_blank_line() -> None:
    old = from_json(Hit, {k: v for k, v in hit(14).as_json().items() if k != "line"})
    assert old.line == 0 and shown_line(old) == (10, "@cached")
    assert from_json(Hit, hit(14).as_json()) == hit(14)


def shown_by_both(found: Hit) -> tuple[str, str]:
    """The line MCP's `locate` prints after the locator, and the CLI's first excerpt line."""
    mcp = answers.locate([found], 2000, multi_store=False).splitlines()[1]
    cli = output.hits([found], multi_store=False).splitlines()[1]
    return mcp.split(" · ", 1)[1], cli.strip()


def test_the_cli_and_mcp_show_the_same_line_of_a_hit() -> None:
    for line in (10, 11, 12, 14, 15, 0):
        mcp, cli = shown_by_both(hit(line))
        assert mcp == cli == (shown_line(hit(line))[1])
    assert shown_by_both(hit(14)) == ("# exponential backoff: base * 2 ** n",) * 2


def test_a_search_chooses_the_line_both_adapters_show(tmp_path: Path,
                                                     settings: Settings) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "retry.py").write_text(CHUNK.replace("BASE", "0.5") + "\n")
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    library.index([str(tmp_path / "proj")])
    answer = library.search("exponential backoff", k=1, scope=Scope(stores=("*",)))
    found = answer.hits[0]
    assert found.path == "retry.py" and found.line == 5
    assert shown_by_both(found) == ("# exponential backoff: base * 2 ** n",) * 2
