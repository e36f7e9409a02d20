"""grep's patterns on RE2 (semlith/local/pattern.py, resyntax.py; issue #47): the lines
Python's `re` would find, line by line, found in a whole file at once; what RE2 cannot
run refused by name; and a grep that waits or runs holds nothing a search needs."""

from __future__ import annotations

import re
import threading
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.errors import Busy
from semlith.local import LocalLibrary, grep, pattern
from semlith.local.pattern import compile_pattern
from semlith.types import Scope
from tests.conftest import HashEmbedder
from tests.secret_fixtures import fakes

TEXTS = ["def foo(x):\n    return x\n\nclass A:\n  pass\n",
         "héllo wörld café\n\tτest 12 ٣ ½\nx\n", "a\n\n\nb", "", "\n", "one line",
         "aaa\nab\nba\nzz  \n \u2003\n_under_score\nCamelCase99\n"]
PATTERNS = [r"^", r"$", r"^$", r"\w+", r"\bfoo\b", r"x$", r"^\s+", r"[^\S\n]+", r"\d",
            r"(?i)CLASS", r"a*", r"\Aa", r"b\Z", r".", r"[\s\S]", r"(a|aa)+$", r"\W",
            r"é", r"(?a)\w+", r"\s$", r"[^a-z\d]", r"(?i:W)ö", r"[\W\d]", r"\D+$",
            r"(?P<name>ca)(?:fé|t)", r"x{0}y?", r"a{2,}?", r"[^\W]", r"(?a)[^\W\d]+",
            r"\S\s\S", r"(?x) c a f", r"[.]", r"\\", r"[]x]", r"[^\\\]]"]


def _by_line(regex: str, text: str) -> list[int]:
    """What `re` finds, one line at a time (the lines as ripgrep counts them)."""
    lines = text.split("\n")
    lines = lines[:-1] if lines and not lines[-1] else lines
    return [n for n, line in enumerate(lines) if re.search(regex, line)]


def _found(regex: str, text: str, is_regex: bool = True) -> list[int]:
    numbers, done = compile_pattern(regex, is_regex).lines(text.encode(),
                                                            time.monotonic() + 60)
    assert done
    return numbers


@pytest.mark.parametrize("regex", PATTERNS)
def test_the_lines_re_finds_line_by_line(regex: str) -> None:
    for text in TEXTS:
        assert _found(regex, text) == _by_line(regex, text), (regex, text)


def test_small_pieces_find_the_same_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "".join(TEXTS) * 3
    monkeypatch.setattr(pattern, "PIECE", 7)  # a cut at the line end after each 7 bytes
    for regex in PATTERNS:
        assert _found(regex, text) == _by_line(regex, text), regex


def test_literals_are_literal_and_never_span_lines() -> None:
    text = "a.b\naxb\n(x)\nend a\nb start\n"
    assert _found("a.b", text, False) == [0] and _found("(x)", text, False) == [2]
    assert _found("a\nb", text, False) == [] and _found(r"a\sb", text) == []
    assert compile_pattern("ab", False).spans("abab ab") == ((0, 2), (2, 4), (5, 7))
    assert compile_pattern(r"é\w", True).spans("café éa") == ((5, 7),)  # characters


def _every(codes: Iterator[int]) -> str:
    return "".join(chr(c) + "\n" for c in codes)


@pytest.mark.parametrize("category", [r"\s", r"\S", r"\d", r"\D", r"\w", r"\W"])
def test_unicode_classes_mean_what_they_mean_in_re(category: str) -> None:
    # Every code point but the line end and the surrogates, one a line; RE2's Unicode
    # tables may be newer than Python's, so an unassigned code point may differ.
    codes = [c for c in range(0x110000) if c != 10 and not 0xD800 <= c <= 0xDFFF]
    found = set(_found(f"^{category}$", _every(iter(codes))))
    wanted = {n for n, c in enumerate(codes) if re.fullmatch(category, chr(c))}
    differ = [codes[n] for n in found ^ wanted]
    assert all(unicodedata.category(chr(c)) == "Cn" for c in differ), \
        [hex(c) for c in differ[:10]]


@pytest.mark.parametrize(("regex", "named"), [
    (r"(x)\1", "a backreference"), (r"(?=x)", "a lookahead or lookbehind"),
    (r"(?<!x)y", "negative lookahead or lookbehind"), (r"x*+", "a possessive quantifier"),
    (r"(?>x)", "an atomic group"), (r"x{5000}", "a repeat count over 1000"),
    (r"[^\W\d_]", r"a negated class holding \W or \D")])
def test_what_re2_cannot_run_is_refused_by_name(regex: str, named: str) -> None:
    with pytest.raises(ValueError, match=re.escape(named)):
        compile_pattern(regex, True)


def test_a_pattern_too_big_for_re2_is_a_one_line_error() -> None:
    with pytest.raises(ValueError, match="cannot be searched") as caught:
        compile_pattern(r"((((\w{1,1000}){1,1000}){1,1000}){1,1000})", True)
    assert "\n" not in str(caught.value)


# -- a grep holds nothing a search needs ---------------------------------------------


@pytest.fixture
def library(tmp_path: Path, settings: Settings) -> Iterator[tuple[LocalLibrary, Scope]]:
    root = tmp_path / "proj"
    root.mkdir()
    for n in range(6):
        (root / f"f{n}.py").write_text(f"def handler_{n}():\n    return 'needle {n}'\n")
    lib = LocalLibrary(settings, embedder_factory=HashEmbedder)
    lib.index([str(root)])
    try:
        yield lib, Scope((str(root),))
    finally:
        lib.close()


def test_a_grep_sees_the_lines_read_serves(tmp_path: Path, settings: Settings) -> None:
    # Files served as their bytes, decoded again (CRLF, a BOM, a bad byte) or redacted.
    root = tmp_path / "odd"
    root.mkdir()
    (root / "crlf.txt").write_bytes(b"first\r\nneedle one\r\nlast\r\n")
    (root / "bom.txt").write_bytes("\ufeffneedle two\n".encode())
    (root / "bad.txt").write_bytes(b"caf\xe9 needle three\n")
    (root / "plain.py").write_text("x = 1\nneedle = 'four'\n")
    token = fakes().github
    (root / "keys.py").write_text(f"needle = 'five'\nKEY = '{token}'\n")
    lib = LocalLibrary(settings, embedder_factory=HashEmbedder)
    try:
        lib.index([str(root)])
        where = Scope((str(root),))
        found = lib.grep("needle", scope=where).matches
        assert len(found) == 5
        for m in found:
            assert lib.read(f"{m.path}:{m.line}", scope=where).lines == (m.text,), m
        assert lib.grep(token, scope=where).files == ()
        assert lib.grep("KEY = '[REDACTED", scope=where).files == ("odd:keys.py",)
    finally:
        lib.close()


class _Paused:
    """Holds every grep inside its search, after it read its first file, until released:
    a grep as long as one wishes, without a slow pattern or a big corpus."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.inside = threading.Event()
        self.release = threading.Event()
        served = grep.served_text

        def paused(*args: object) -> tuple[bytes, bool]:
            self.inside.set()
            assert self.release.wait(30)
            return served(*args)  # type: ignore[arg-type]
        monkeypatch.setattr(grep, "served_text", paused)


def _in_thread(func: object, *args: object, **kwargs: object) -> tuple[threading.Thread,
                                                                        list[object]]:
    out: list[object] = []

    def call() -> None:
        try:
            out.append(func(*args, **kwargs))  # type: ignore[operator]
        except Exception as exc:  # noqa: BLE001 - handed to the test
            out.append(exc)
    thread = threading.Thread(target=call)
    thread.start()
    return thread, out


def test_a_running_grep_holds_no_lock_a_search_or_read_needs(
        library: tuple[LocalLibrary, Scope], monkeypatch: pytest.MonkeyPatch) -> None:
    lib, where = library
    paused = _Paused(monkeypatch)
    thread, out = _in_thread(lib.grep, "needle", scope=where)
    assert paused.inside.wait(30)
    # The grep is mid-search; a search, a read and symbol look-ups go through meanwhile.
    assert lib.search("handler", scope=where).hits
    assert lib.read("f1.py:1", scope=where).lines == ("def handler_1():",)
    assert lib.symbol("handler_2", scope=where)
    assert thread.is_alive()  # still held: the calls above did not wait for it
    paused.release.set()
    thread.join(30)
    assert len(out[0].files) == 6  # type: ignore[union-attr]


def test_greps_beyond_the_one_running_wait_or_are_turned_away(
        library: tuple[LocalLibrary, Scope], monkeypatch: pytest.MonkeyPatch) -> None:
    lib, where = library
    paused = _Paused(monkeypatch)
    first, first_out = _in_thread(lib.grep, "needle", scope=where)
    assert paused.inside.wait(30)
    gate = lib.engine.greps
    waiting = [_in_thread(lib.grep, "handler", scope=where) for _ in range(grep.GREPS_WAITING)]
    deadline = time.monotonic() + 30
    while gate._waiting < grep.GREPS_WAITING and time.monotonic() < deadline:
        time.sleep(0.01)  # bounded: until every one of them waits at the gate
    assert gate._waiting == grep.GREPS_WAITING
    with pytest.raises(Busy, match="greps are already waiting"):
        lib.grep("needle", scope=where)
    paused.release.set()
    for thread, out in [(first, first_out), *waiting]:
        thread.join(30)
        assert not isinstance(out[0], Exception) and len(out[0].files) == 6  # type: ignore[union-attr]


def test_a_grep_whose_deadline_passes_while_it_waits_says_so(
        library: tuple[LocalLibrary, Scope], monkeypatch: pytest.MonkeyPatch) -> None:
    lib, where = library
    paused = _Paused(monkeypatch)
    first, _ = _in_thread(lib.grep, "needle", scope=where)
    assert paused.inside.wait(30)
    monkeypatch.setattr(grep, "TIME_BUDGET", 0.0)
    found = lib.grep("handler", scope=where)
    assert found.files == () and "other greps held the search" in found.note
    paused.release.set()
    first.join(30)
