"""Issue #26: files that stalled indexing, and each per-file stage bounded: parses and
plans past their deadline cut into line windows."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import TypeVar

import pytest

from semlith.ingest import definitions
from semlith.ingest.chunk import MAX_CHARS, MAX_CHUNKS_PER_FILE, Chunked, chunk_file
from semlith.languages import language_of
from tests.hostile_files import generated_python, minified_bundle

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "sample"
PY, JS = language_of("x.py"), language_of("x.js")
# A guard against a stall, not a timing assertion: the files below take a few seconds.
HANG_SECONDS = 60.0
T = TypeVar("T")


def within(seconds: float, func: Callable[[], T]) -> T:
    """`func()`, failing the test if it is still running after `seconds` (a daemon thread
    is left to spin: what a stalled run does)."""
    done: list[T] = []
    failed: list[BaseException] = []

    def target() -> None:
        try:
            done.append(func())
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            failed.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"still running after {seconds:.0f} s: the run is stalled (issue #26)")
    if failed:
        raise failed[0]
    return done[0]


def assert_bounded(result: Chunked) -> None:
    assert 0 < len(result.chunks) <= MAX_CHUNKS_PER_FILE
    assert all(len(c.text) <= MAX_CHARS for c in result.chunks)


# -- chunking: every stage ends --------------------------------------------------------


@pytest.mark.slow
def test_a_module_of_40000_functions_is_cut_within_bounds() -> None:
    text = generated_python(marker=False)  # chunk_file does not judge: the indexer does
    result = within(HANG_SECONDS, lambda: chunk_file(text, PY))
    assert_bounded(result)
    # Cut at its definitions, or (on a slow machine) into line windows after the deadline.
    assert result.strategy == "definitions" or "took over" in result.strategy, result.strategy
    if result.strategy == "definitions":
        assert result.chunks[0].text.startswith("def handler_00000(request, ctx):")
        held = [s for s in result.symbols if s.chunk >= 0]
        assert len(held) > 1000
        for symbol in held:
            chunk = result.chunks[symbol.chunk]
            assert chunk.start_line <= symbol.start_line <= chunk.end_line


@pytest.mark.slow
def test_a_one_line_minified_bundle_is_cut_within_bounds() -> None:
    bundle = minified_bundle()
    assert bundle.count("\n") == 0 and len(bundle) > 3_800_000
    assert_bounded(within(HANG_SECONDS, lambda: chunk_file(bundle, JS)))


def test_a_deadline_passing_between_parse_and_names_falls_back_instead_of_spinning(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's mechanism: once the deadline passed, the old read callback returned b""
    and `Node.text` called it again and again without end."""
    now = [0.0]
    parse = definitions._parse

    def parse_then_late(*args: object) -> object:
        tree = parse(*args)  # type: ignore[arg-type]
        now[0] = 1e9  # the deadline passes right after the parse
        return tree

    monkeypatch.setattr(definitions, "time", SimpleNamespace(monotonic=lambda: now[0]))
    monkeypatch.setattr(definitions, "_parse", parse_then_late)
    result = within(HANG_SECONDS, lambda: chunk_file("def f():\n    return 1\n", PY))
    assert result.strategy == "lines (definitions took over 3 s)"
    assert result.chunks[0].text == "def f():\n    return 1\n"


@pytest.mark.parametrize(("name", "text"), [
    ("x.py", "def f():\n    return 1\n\n\nclass C:\n    pass\n"),
    ("guide.md", "# Guide\n\nIntro.\n\n## Install\n\nSteps.\n"),
])
def test_a_plan_past_its_deadline_falls_back_to_line_windows(
        monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> None:
    monkeypatch.setattr("semlith.ingest.chunk.PLAN_SECONDS", -1.0)
    result = chunk_file(text, language_of(name))
    assert result.strategy.startswith("lines (planning took over")
    assert [c.text for c in result.chunks] == [text]


def test_nested_headings_end_before_the_next_of_their_level() -> None:
    body = "Words about this part. " * 25  # one section a chunk
    source = "".join(f"{h}\n\n{body}\n\n" for h in
                     ("# A", "## B", "### C", "## D", "# E"))
    result = chunk_file(source, language_of("doc.md"))
    assert result.strategy == "headings"
    assert [(c.symbol, c.context, c.start_line, c.end_line) for c in result.chunks] == [
        ("A", "A", 1, 3), ("B", "A > B", 5, 7), ("C", "A > B", 9, 11), ("D", "A", 13, 15),
        ("E", "", 17, 19)]
