"""Checks every language's fixture must pass (shared by test_grammars_a/b.py)."""

from __future__ import annotations

import itertools
from pathlib import Path

from semlith.base.languages import language_of
from semlith.ingest.chunk import MAX_CHARS, WHOLE_CHARS, Chunked, Symbol, chunk_file
from semlith.ingest.definitions import find_definitions

FIXTURES = Path(__file__).parent.parent / "fixtures" / "languages"
# The largest whole-definition size measured (issue #21; not the default, WHOLE_CHARS).
WHOLE_TRIED = 3 * MAX_CHARS
KINDS = {"function", "method", "class", "struct", "enum", "interface", "impl", "module",
         "constant", "variable", "type"}


def fixture_id(case: object) -> str:
    """A test id from a case's fixture file name: "cpp.cpp" -> "cpp"."""
    return str(case.fixture).split(".")[0]


def chunked_fixture(fixture: str, whole_chars: int = WHOLE_CHARS
                    ) -> tuple[list[str], Chunked]:
    """A fixture's lines, and how it is chunked (`whole_chars=WHOLE_TRIED`: as if a
    definition up to three budgets stayed whole, the planner's other setting)."""
    path = FIXTURES / fixture
    text = path.read_text()
    return text.split("\n"), chunk_file(text, language_of(path), whole_chars=whole_chars)


def definitions_found(source: str, path: str) -> list[tuple[str, int, int, bool]]:
    """(name, first line, last line, whether test code) of each definition in `source`,
    read as the language of `path`: what the test-block queries are checked on."""
    return [(d.name, d.start_line, d.end_line, d.test)
            for d in find_definitions(source, language_of(path))]


def kinds_found(source: str, path: str) -> list[tuple[str, str, int, int]]:
    """(name, kind, first line, last line) of each definition in `source`, read as the
    language of `path`."""
    return [(d.name, d.kind, d.start_line, d.end_line)
            for d in find_definitions(source, language_of(path))]


def symbols_found(source: str, path: str) -> list[tuple[str, str, int, int]]:
    """(qualified name, kind, first line, last line) of each symbol the chunker reports
    for `source`, read as the language of `path`."""
    return [(s.qualname, s.kind, s.start_line, s.end_line)
            for s in chunk_file(source, language_of(path)).symbols]


def def_line(lines: list[str], symbol: Symbol) -> int:
    """The line the signature starts on (the definition proper, after attributes); 0 when
    none is. A signature may run over several lines, collapsed to one, and stops at the
    body: the line and the signature agree as far as the shorter goes."""
    for n in range(symbol.start_line, symbol.end_line + 1):
        line = " ".join(lines[n - 1].split())
        common = min(len(line), len(symbol.signature))
        if line and line[:common] == symbol.signature[:common]:
            return n
    return 0


def size(lines: list[str], start: int, end: int) -> int:
    return sum(len(line) + 1 for line in lines[start - 1 : end])


def assert_small_definitions_are_never_cut(lines: list[str], chunked: Chunked) -> None:
    small = [s for s in chunked.symbols if size(lines, s.start_line, s.end_line) < MAX_CHARS]
    assert small
    for s in small:
        for chunk in chunked.chunks:
            assert not s.start_line < chunk.start_line <= s.end_line, (s.qualname, chunk)
            assert not s.start_line <= chunk.end_line < s.end_line, (s.qualname, chunk)


def assert_long_definition_split_between_lines(lines: list[str], chunked: Chunked,
                                               qualname: str) -> None:
    symbol = next(s for s in chunked.symbols if s.qualname == qualname)
    assert size(lines, symbol.start_line, symbol.end_line) > MAX_CHARS
    parts = [c for c in chunked.chunks
             if c.start_line <= symbol.end_line and c.end_line >= symbol.start_line]
    assert len(parts) >= 2
    assert all(c.symbol == symbol.name for c in parts)
    assert parts[0].start_line <= symbol.start_line and parts[-1].end_line >= symbol.end_line
    for before, after in itertools.pairwise(parts):  # nothing but blank lines between
        assert not "".join(lines[before.end_line : after.start_line - 1]).strip()


def assert_long_definition_kept_whole(lines: list[str], chunked: Chunked,
                                      qualname: str) -> None:
    """Over the budget but under WHOLE_TRIED: one chunk, from its doc comment on."""
    symbol = next(s for s in chunked.symbols if s.qualname == qualname)
    assert MAX_CHARS < size(lines, symbol.start_line, symbol.end_line) <= WHOLE_TRIED
    parts = [c for c in chunked.chunks
             if c.start_line <= symbol.end_line and c.end_line >= symbol.start_line]
    assert len(parts) == 1, parts
    assert parts[0].start_line <= symbol.start_line and parts[0].end_line >= symbol.end_line
    assert parts[0].symbol == symbol.name, parts[0]


def assert_chunks_are_the_files_lines_once(lines: list[str], chunked: Chunked) -> None:
    covered: list[int] = []
    for chunk in chunked.chunks:
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        covered.extend(range(chunk.start_line, chunk.end_line + 1))
    assert covered == sorted(set(covered))
    assert {n for n, line in enumerate(lines, 1) if line.strip()} <= set(covered)
