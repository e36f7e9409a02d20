"""Every MCP tool's answer within its bound on an adversarial store, saying what it left
out (issue #47, finding 1; the graph tools' are in tests/graph/test_bounds.py).

A read of a file of 21,000-character lines answered 1,050,421 characters; `files` of
paths 3,000 characters deep, `symbol` of a name defined in forty such files, and
`stats` of 180 stores 450 characters deep had no bound at all, and a Markdown heading of 40,000
characters was the symbol on every line of a search that named its sections. Tools
without a max_tokens argument stay within answers.ANSWER_TOKENS (20,000 tokens, 80,000
characters); the others within max_tokens.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from semlith.base.settings import Settings
from semlith.local import Engine, LocalLibrary
from semlith.server.answers import ANSWER_CHARS
from tests.conftest import HashEmbedder
from tests.server_util import ACCEPT, app_over_fleet, call_tool, open_session

pytestmark = pytest.mark.slow  # indexes ~2,000 chunks and 181 stores (~20 s)

DEEP = "/".join(["d" * 200] * 13)  # a folder 2,612 characters deep
# Stores as deep as SQLite opens (its path names stop at 512 bytes), enough of them
# that their `stats` lines pass 80,000 characters.
SHALLOWER = "/".join(["s" * 200] * 2)
WIDE = "walrus " * 3000  # a line of 21,000 characters
HEADING = "heading " * 5000  # a Markdown heading of 40,000 characters
STORES = 180


@dataclass
class Served:
    client: TestClient
    session: dict[str, str]
    root: Path


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("answers")
    root = tmp / "hostile"
    files = {"long.txt": (WIDE + "\n") * 50, "one.txt": "walrus " * 60_000 + "\n",
             "doc.md": f"# {HEADING}\n\n" + "".join(f"## part {i}\n\nwalrus notes {i}\n\n"
                                                    for i in range(40))}
    files |= {f"{DEEP}/m{i:02d}.py": f"def run():\n    return {i}\n" for i in range(40)}
    _write(root, files)
    config = Settings.load(env={"SEMLITH_HOME": str(tmp / "home")})
    engine = Engine(config, lambda name: HashEmbedder(name))
    library = LocalLibrary(config, engine=engine)
    library.index([str(root)])
    for n in range(STORES):
        other = tmp / SHALLOWER / f"store{n:03d}"
        _write(other, {"a.txt": "walrus\n"})
        library.index([str(other)])
    asgi, fleet, keys = app_over_fleet(config, engine)
    with TestClient(asgi, base_url="http://127.0.0.1:7365",
                    raise_server_exceptions=False) as client:
        auth = {"Authorization": f"Bearer {keys.agent}", **ACCEPT}
        yield Served(client, open_session(client, auth), root)
    fleet.close()
    engine.close()


def tool(served: Served, tool_name: str, **arguments: Any) -> str:
    arguments.setdefault("stores", [str(served.root)])
    text, failed = call_tool(served, tool_name, arguments)  # type: ignore[arg-type]
    assert not failed, text
    return text


def test_read_of_long_lines_stops_at_a_line_and_says_where_to_go_on(served: Served) -> None:
    text = tool(served, "semlith_read", target="long.txt")
    assert len(text) <= ANSWER_CHARS
    head, *_, tail = text.splitlines()
    shown = int(head.split("-")[-1])
    assert 1 <= shown < 50 and head == f"long.txt:1-{shown}"
    assert tail == (f"(lines {shown + 1}-51 not shown (answers stay within 20,000 tokens); "
                    f"read long.txt:{shown + 1}-51)")


def test_read_of_one_line_longer_than_an_answer_cuts_it_and_says_so(served: Served) -> None:
    text = tool(served, "semlith_read", target="one.txt")
    assert len(text) <= ANSWER_CHARS
    assert text.startswith("one.txt:1-1\n    1  walrus walrus")
    assert "(line 1 cut at " in text and " of 420,000 characters)" in text


@pytest.mark.parametrize("fmt", ["locate", "excerpt"])
@pytest.mark.parametrize("budget", [100, 2000, 20000])
def test_search_within_max_tokens_with_a_40000_character_section_name(
        served: Served, fmt: str, budget: int) -> None:
    text = tool(served, "semlith_search", query="walrus notes", k=50, path=["doc.md"],
                format=fmt, max_tokens=budget)
    assert len(text) <= budget * 4
    # The section names cut (the hits' own text holds at most 800 characters of it).
    assert max(map(len, text.splitlines())) <= 1000 and "\u2026" in text
    if budget < 20000:
        assert "more hits left out to stay within" in text.splitlines()[-1]


def test_exact_search_of_long_lines_within_max_tokens(served: Served) -> None:
    text = tool(served, "semlith_search", query="walrus", mode="exact", k=50, context=3)
    assert len(text) <= 2000 * 4 and "more matches in 2 files" in text.splitlines()[-1]


def test_files_of_deep_paths_and_many_stores(served: Served) -> None:
    text = tool(served, "semlith_files", stores=["*"], limit=5000)
    assert len(text) <= ANSWER_CHARS
    assert text.splitlines()[-1].startswith("(") and "more paths not shown and " in text
    assert "stores not listed; answers stay within 20,000 tokens" in text


def test_stats_of_many_deep_stores(served: Served) -> None:
    text = tool(served, "semlith_stats", stores=["*"])
    assert len(text) <= ANSWER_CHARS
    last = text.splitlines()[-1]
    assert last.endswith("more stores not shown; answers stay within 20,000 tokens: pass "
                         "stores to choose)")
    shown = len([line for line in text.splitlines()[:-1] if not line.startswith("  ")])
    assert last == f"({STORES + 1 - shown} more stores not shown; answers stay within " \
                   "20,000 tokens: pass stores to choose)"


def test_symbol_defined_in_forty_deep_files(served: Served) -> None:
    text = tool(served, "semlith_symbol", name="run")
    assert len(text) <= ANSWER_CHARS
    lines = text.splitlines()
    assert lines[-1] == (f"({40 - len(lines) + 1} more definitions not shown; answers stay "
                         "within 20,000 tokens)")


def test_outline_within_max_tokens_and_refuses_more_than_a_client_takes(
        served: Served) -> None:
    text = tool(served, "semlith_outline", target="doc.md", max_tokens=100)
    assert len(text) <= 100 * 4 and "more definitions: raise max_tokens" in text
    text, failed = call_tool(served, "semlith_outline", {
        "target": "doc.md", "stores": [str(served.root)], "max_tokens": 10**9})
    assert failed and text == "max_tokens must be 100 to 25,000, got 1000000000"
