"""Whole definitions as answers (issue #46, search/whole.py): a hit that is a fragment of
a larger definition shows the whole of it when it fits, named by its qualified name; a
definition too large keeps the fragment and says it is a part; fragments of one shown
definition become one hit; the top k stays a prefix of the top k + n; a budget falls
back to the fragment."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.cli import output
from semlith.ingest.secrets import MARKER
from semlith.local import LocalLibrary
from semlith.search.whole import WHOLE_CHARS, WHOLE_LINES, rebuilt
from semlith.server import answers
from semlith.types import ChunkRecord, Hit, Scope, from_json
from semlith.types.shown import fragment, is_part, title
from tests.cli_util import run
from tests.conftest import HashEmbedder
from tests.secret_fixtures import fakes


def _body(word: str, n: int, indent: str = "    ") -> list[str]:
    """`n` statements long enough that a function of them is cut in several chunks."""
    return [f"{indent}value_{i} = transform_{word}(value_{i - 1}, 'a fairly long argument {i}')"
            for i in range(1, n + 1)]


def _source(secret: str = "") -> str:
    lines = ["import re", "", "",
             "def compile_pattern(path):",  # 4
             '    """Turn a route path into a regular expression."""',
             "    value_0 = path",
             *_body("pattern", 24),
             "    zebra_converter = re.compile(value_24)  # the zebra converter",
             "    return zebra_converter",  # 32
             "", "",
             "class Router:",  # 35
             '    """Routes requests."""',
             "",
             "    def dispatch(self, scope):",  # 38
             "        value_0 = scope",
             *_body("dispatch", 24, "        "),
             "        walrus_route = self.match(value_24)  # the walrus route",
             f"        token = '{secret}'" if secret else "        token = ''",
             "        return walrus_route, token",  # 66
             "", "",
             "def enormous(data):",  # 69
             "    value_0 = data",
             *_body("enormous", WHOLE_LINES + 10),
             "    okapi_result = value_90  # the okapi result",
             "    return okapi_result",
             ""]
    return "\n".join(lines)


@pytest.fixture
def library(tmp_path: Path, settings: Settings) -> LocalLibrary:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "routing.py").write_text(_source(fakes().github))
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    library.index([str(tmp_path / "proj")])
    return library


def search(library: LocalLibrary, query: str, k: int = 5) -> list[Hit]:
    return list(library.search(query, k=k, scope=Scope(stores=("*",))).hits)


def test_a_definition_cut_in_several_chunks_comes_back_whole(library: LocalLibrary,
                                                             tmp_path: Path) -> None:
    first = search(library, "zebra converter")[0]
    assert (first.path, first.start_line, first.end_line) == ("routing.py", 4, 32)
    assert first.symbol == "compile_pattern" and first.definition == (4, 32)
    assert 4 < first.found[0] <= first.found[1] == 32  # the chunk the ranking found
    lines = (tmp_path / "proj" / "routing.py").read_text().split("\n")
    assert first.text == "\n".join(lines[3:32])  # as indexed: the file's own lines
    assert "zebra" in lines[first.line - 1]  # the shown line is still chosen inside it
    assert not is_part(first) and title(first) == "compile_pattern"


def test_a_method_is_named_by_its_qualified_name(library: LocalLibrary) -> None:
    first = search(library, "walrus route")[0]
    assert (first.start_line, first.end_line, first.symbol) == (38, 66, "Router.dispatch")


def test_redacted_secrets_stay_redacted_in_a_whole_definition(
        library: LocalLibrary) -> None:
    first = search(library, "walrus route")[0]
    assert fakes().github not in first.text
    assert MARKER.format(kind="github-token") in first.text


def test_a_definition_too_big_keeps_its_fragment_and_says_it_is_a_part(
        library: LocalLibrary) -> None:
    first = search(library, "okapi result")[0]
    assert first.symbol == "enormous" and first.found == (0, 0)
    assert first.definition[0] == 69 and first.end_line == first.definition[1]
    assert first.start_line > 69 and is_part(first)
    note = f"enormous (part of 69-{first.definition[1]})"
    assert title(first) == note
    assert f"routing.py:{first.start_line}-{first.end_line} {note}" in \
        output.hits([first], multi_store=False)
    assert f"{first.start_line}-{first.end_line} {note} · " in \
        answers.locate([first], 2000, multi_store=False)
    assert f"{first.locator} {note}\n" in answers.excerpts([first], 2000, multi_store=False)


def test_two_hits_in_one_shown_definition_become_one_and_the_list_closes_up(
        library: LocalLibrary) -> None:
    # Every chunk of `dispatch` holds "transform_dispatch": one hit shows all of them.
    hits = search(library, "transform dispatch value", k=4)
    assert len(hits) == 4
    dispatch = [h for h in hits if h.symbol == "Router.dispatch"]
    # Its first chunk opens the class too: the hit shows those lines with it.
    assert len(dispatch) == 1 and dispatch[0].definition == (38, 66)
    assert (dispatch[0].start_line, dispatch[0].end_line) == (35, 66)
    spans = [(h.start_line, h.end_line) for h in hits]
    assert len(set(spans)) == 4
    assert not any(a <= s and e <= b for a, b in spans for s, e in spans if (a, b) != (s, e))


def test_the_top_k_is_a_prefix_of_the_top_k_plus_n(library: LocalLibrary) -> None:
    for query in ("transform dispatch value", "value transform pattern", "okapi zebra"):
        every = [(h.locator, h.symbol, h.text) for h in search(library, query, k=12)]
        for k in range(1, len(every)):
            assert [(h.locator, h.symbol, h.text) for h in search(library, query, k=k)] \
                == every[:k], (query, k)


def test_search_json_carries_the_definition_and_the_found_lines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "cli"
    root.mkdir()
    (root / "routing.py").write_text(_source())
    monkeypatch.chdir(root)
    assert run("index", str(root), "--quiet").exit_code == 0
    hits = json.loads(run("search", "zebra converter", "--json", "-k", "1").output)
    assert hits[0]["start_line"] == 4 and hits[0]["definition"] == [4, 32]
    assert hits[0]["found"][1] == 32 and hits[0]["symbol"] == "compile_pattern"
    assert from_json(Hit, hits[0]).definition == (4, 32)
    text = run("search", "okapi result", "-k", "1").output
    assert "enormous (part of 69-" in text.splitlines()[0]


def _widened(n: int) -> Hit:
    """A hit of 40 lines showing its whole definition, found at its last 5."""
    text = "\n".join(f"line {i} of definition {n} " + "x" * 60 for i in range(40))
    return Hit("s", f"f{n}.py", 10, 49, 1.0, text, f"def_{n}", "function", 0.9, 47,
               definition=(10, 49), found=(45, 49))


def test_a_budget_that_cannot_hold_a_whole_definition_shows_its_fragment() -> None:
    hits = [_widened(n) for n in range(3)]
    one_whole = len(answers.excerpts(hits[:1], 25_000, False))
    fragments = answers.excerpts([fragment(h) for h in hits], 25_000, False)
    budget = (one_whole + len(fragments)) // 4 + 40  # the first whole, the rest as parts
    text = answers.excerpts(hits, budget, False)
    assert len(text) <= budget * 4 and "left out" not in text
    assert "f0.py:10-49 def_0\n" in text  # the best hit widens first
    assert "f1.py:45-49 def_1 (part of 10-49)\n" in text
    assert "f2.py:45-49 def_2 (part of 10-49)\n" in text
    # A budget for the fragments alone: every hit as its fragment, none pushed out.
    small = answers.excerpts(hits, len(fragments) // 4 + 30, False)
    assert small.count("(part of 10-49)") == 3 and "left out" not in small


def test_fragment_cuts_a_whole_hit_back_to_its_chunk() -> None:
    whole = _widened(1)
    part = fragment(whole)
    assert (part.start_line, part.end_line, part.line, part.found) == (45, 49, 47, (0, 0))
    assert part.text == "\n".join(whole.text.split("\n")[35:])
    assert is_part(part) and not is_part(whole)
    assert fragment(part) is part
    assert fragment(replace(whole, line=12)).line == 45  # a shown line outside: the first


def test_rebuilt_joins_the_pieces_of_a_long_line_and_fills_blank_gaps() -> None:
    def chunk(cid: int, first: int, last: int, text: str, ordinal: int = 0) -> ChunkRecord:
        return ChunkRecord(cid, "a.py", ordinal, first, last, "function", "f", text)

    long = "y" * 30
    chunks = [chunk(1, 1, 2, "def f():\n    a = 1"), chunk(2, 4, 4, long[:10], 1),
              chunk(3, 4, 4, long[10:], 2), chunk(4, 5, 6, "    b = 2\n    return b")]
    assert rebuilt(chunks, 1, 6) == f"def f():\n    a = 1\n\n{long}\n    b = 2\n    return b"
    assert rebuilt(chunks[:3], 1, 6) is None  # the chunks stop before its last line
    assert rebuilt([chunk(5, 1, 3, "one line")], 1, 3) is None  # not its lines
    assert WHOLE_CHARS >= 40 * WHOLE_LINES  # room for lines of an ordinary width


def test_whole_off_shows_the_chunks_found_named_as_parts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEMLITH_RANKING", "whole=0")
    (tmp_path / "off").mkdir()
    (tmp_path / "off" / "routing.py").write_text(_source())
    library = LocalLibrary(Settings.load(), embedder_factory=lambda n: HashEmbedder(n))
    library.index([str(tmp_path / "off")])
    first = search(library, "zebra converter")[0]
    assert first.start_line > 4 and first.end_line == 32 and first.found == (0, 0)
    assert title(first) == "compile_pattern (part of 4-32)"
