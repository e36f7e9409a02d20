"""Line-window chunking: exact line numbers, overlap, hard splits."""

from __future__ import annotations

import itertools

from semlith.ingest.chunk import MAX_CHUNKS_PER_FILE, Chunk, line_windows


def test_windows_are_line_aligned_with_two_lines_of_overlap() -> None:
    lines = [f"line {i:03d} " + "x" * 60 for i in range(1, 101)]
    text = "\n".join(lines)
    chunks = line_windows(text)
    assert chunks[0].start_line == 1
    for chunk in chunks:
        assert len(chunk.text) <= 800
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
    for before, after in itertools.pairwise(chunks):
        assert after.start_line == before.end_line - 1  # two shared lines
    assert chunks[-1].end_line == 100


def test_over_long_line_is_hard_split_keeping_its_line_number() -> None:
    text = "short\n" + "y" * 2000 + "\nafter"
    chunks = line_windows(text)
    pieces = [c for c in chunks if c.start_line == 2]
    assert [len(c.text) for c in pieces] == [800, 800, 400]
    assert all(c.end_line == 2 for c in pieces)
    assert chunks[0].text == "short" and chunks[-1].text == "after"


def test_minified_single_line_is_capped() -> None:
    chunks = line_windows("z" * (800 * (MAX_CHUNKS_PER_FILE + 50)))
    assert len(chunks) == MAX_CHUNKS_PER_FILE


def test_blank_text_gives_no_chunks() -> None:
    assert line_windows("\n\n   \n") == []


def test_context_is_only_in_the_embedding_text() -> None:
    chunk = Chunk(3, 4, "def add_route(self):", context="class Router")
    assert chunk.embedding_text() == "class Router\ndef add_route(self):"
    assert chunk.text == "def add_route(self):"



def test_a_line_of_exactly_the_window_size_is_a_window_of_its_own() -> None:
    from semlith.ingest.chunk import MAX_CHARS

    exact = "x" * MAX_CHARS  # its newline does not fit beside it: the window hung before
    windows = line_windows(f"a\n{exact}\nb", max_chars=MAX_CHARS)
    assert [(w.start_line, w.end_line) for w in windows] == [(1, 1), (2, 2), (3, 3)]
    assert windows[1].text == exact
    assert line_windows(exact * 1 + "\n" + exact, max_chars=MAX_CHARS)[-1].text == exact
