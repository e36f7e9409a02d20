"""One bounded parse per file, and what the parser's read callback leaves behind (issue #43).

py-tree-sitter 0.26.1 keeps a reference to every object the read callback returns; with a
fresh slice per call, the Scala grammar (a call every 12-25 bytes) kept 2.3 GB for one
474 KB generated table. These tests fail if any grammar, the binding or `parse.py` brings
that growth back.
"""

from __future__ import annotations

import gc
import threading
import tracemalloc

import pytest

from semlith.base.languages import LANGUAGES, language_of
from semlith.ingest import parse as parsing
from semlith.ingest.chunk import chunk_file
from semlith.ingest.definitions import has_definitions, read_code
from semlith.ingest.graph import extract_edges, has_edges
from tests.hostile_files import EXTENSIONS, TABLE_LANGUAGES, data_table

CHUNKED = [lang.name for lang in LANGUAGES if has_definitions(lang)]


def test_every_chunked_language_has_a_generated_table() -> None:
    assert sorted(TABLE_LANGUAGES) == sorted(CHUNKED)


def _retained(action: object) -> int:
    """Bytes Python still holds after `action()` returned and its result was dropped."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        action()  # type: ignore[operator]
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name", TABLE_LANGUAGES)
def test_a_parse_keeps_nothing_its_read_callback_returned(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsing, "PARSE_SECONDS", 600.0)  # the memory, not the clock
    language = language_of(f"gen.{EXTENSIONS[name]}")
    assert language is not None
    text = data_table(name, 100_000)
    read_code(text, language)  # warm: the grammar, its query, the buffer pool
    calls = [0]  # counted, not listed: a list of offsets is memory kept too

    class Counting(parsing._Reader):
        __slots__ = ()

        def __call__(self, offset: int, point: object) -> bytes | bytearray:
            calls[0] += 1
            return super().__call__(offset, point)

    monkeypatch.setattr(parsing, "_Reader", Counting)
    kept = _retained(lambda: read_code(text, language))
    assert calls[0], "the parse went through the read callback"
    # A fresh slice per call kept at least the file (101-148 KB here for every grammar,
    # 438 MB for Scala's 10,655 reads). One reused buffer keeps nothing; what is left is
    # py-tree-sitter's `#match?` predicate keeping ~14 bytes a successful match (28 KB
    # for Elixir's table, whose definitions are all found through one; docs/performance.md).
    assert kept < len(text) // 2, f"{name}: {kept:,} bytes kept after {calls[0]:,} reads"


def test_the_scala_grammar_calls_back_every_few_bytes() -> None:
    """Why Scala was the case that blew up: keep knowing it (a grammar upgrade that reads
    in larger pieces would make this fail, and the docstring above stale)."""
    scala = language_of("gen.scala")
    assert scala is not None
    text = data_table("scala", 50_000)
    calls = []

    class Counting(parsing._Reader):
        __slots__ = ()

        def __call__(self, offset: int, point: object) -> bytes | bytearray:
            calls.append(offset)
            return super().__call__(offset, point)

    buffer = parsing._take()
    parser_reader = Counting(text.encode(), buffer)
    from tree_sitter_language_pack import get_parser

    assert get_parser("scala").parse(parser_reader) is not None
    parsing._give(parser_reader.detach())
    assert len(text) / len(calls) < 100


def test_parses_on_two_threads_at_once_give_the_answers_of_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsing, "PARSE_SECONDS", 600.0)  # the answers, not the clock
    files = [(name, data_table(name, 30_000)) for name in ("scala", "python", "go", "rust")]
    expected = {name: chunk_file(text, language_of(f"x.{EXTENSIONS[name]}")).chunks
                for name, text in files}
    found: dict[str, list[object]] = {name: [] for name, _ in files}
    failures: list[BaseException] = []

    def work(rounds: int) -> None:
        try:
            for _ in range(rounds):
                for name, text in files:
                    found[name].append(
                        chunk_file(text, language_of(f"x.{EXTENSIONS[name]}")).chunks)
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(3,)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert all(chunks == expected[name] for name in found for chunks in found[name])
    assert len(parsing._pool) <= 3  # one buffer per parse at once, not one per parse


def test_one_parse_gives_the_chunker_and_the_edges_what_each_would_read_alone() -> None:
    python = language_of("shop.py")
    assert python is not None and has_edges(python)
    text = "class Shop:\n    def buy(self, item):\n        return price(item)\n\n\n" \
           "def price(item):\n    return item.cost\n"
    code = read_code(text, python)
    assert code.parsed is not None and not code.failed
    assert chunk_file(text, python, code=code) == chunk_file(text, python)
    assert extract_edges(text, python, code) == extract_edges(text, python)


def test_a_failed_read_says_why_to_the_chunker_and_the_edges(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsing, "PARSE_SECONDS", -1.0)
    python = language_of("a.py")
    assert python is not None
    code = read_code("def f():\n    g()\n", python)
    assert code.parsed is None and code.failed.startswith("parse took over")
    assert chunk_file("def f():\n    g()\n", python, code=code).strategy == \
        f"lines ({code.failed})"
    assert extract_edges("def f():\n    g()\n", python, code).failed == \
        f"definitions: {code.failed}"
