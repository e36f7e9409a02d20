"""What grep looks for: a literal, or a Python-syntax regex run by RE2 (issue #47).

The `regex` package with a timeout per line let `(a|aa)+$` cost seconds of CPU a call
while holding the GIL, so that 16 such greps delayed another client's search 6.7 s. RE2
matches in time linear in the text and releases the GIL while it does, so a pattern
cannot be slow beyond the size of what it reads, and nothing is refused for its shape;
only the parts RE2 cannot run are (`resyntax.py`).

A file is searched whole, as UTF-8 bytes, not line by line: a pattern can never match a
newline (RE2's `never_nl`), so each match lies within one line, a file without one costs
one call, and one with many costs a call per matching line. The text is cut into pieces
of `PIECE` bytes at line ends, so that a search stops at its deadline inside a big file.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from itertools import islice
from typing import Any

import re2

from semlith.local.resyntax import Unsupported, to_re2

PIECE = 1 << 20  # bytes searched between two looks at the clock
MAX_SPANS = 50  # highlighted matches in one line
SPAN_CAP = 10_000  # characters of a shown line its highlights are looked for in
_UNANCHORED = re2._Anchor.UNANCHORED


class Pattern:
    """A compiled grep pattern: which lines of a text hold a match, and where."""

    def __init__(self, source: str, regex: Any) -> None:
        self.source = source
        self._regex = regex  # None for a literal
        if regex is None:
            needle = source.encode()
            self._find: Callable[[bytes, int, int], int] = \
                (lambda data, start, stop: data.find(needle, start, stop)) \
                if b"\n" not in needle else (lambda data, start, stop: -1)  # in no line
        else:
            match = regex._regexp.Match  # one call, no copy: the wrapper encodes str again
            self._find = lambda data, start, stop: match(_UNANCHORED, data, start, stop)[0][0]

    def lines(self, data: bytes, deadline: float) -> tuple[list[int], bool]:
        """The 0-based numbers of the lines of `data` (UTF-8 text, "\\n" line ends; after
        the last "\\n" no line, as ripgrep counts) that hold a match, and whether the
        search got to the end before `deadline` (time.monotonic())."""
        if not data:
            return [], True
        end = len(data) - (data[-1] == 0x0A)
        find, found = self._find, list[int]()
        start = counted = line = 0
        while start <= end:
            if time.monotonic() > deadline:
                return found, False
            stop = end if end - start <= PIECE else data.find(b"\n", start + PIECE, end)
            stop = end if stop < 0 else stop
            at = find(data, start, stop)
            if at < 0:
                start = stop + 1
                continue
            line += data.count(b"\n", counted, at)
            counted = at
            found.append(line)
            start = data.find(b"\n", at, end) + 1
            if start == 0:
                break
        return found, True

    def spans(self, text: str) -> tuple[tuple[int, int], ...]:
        """Where the pattern matches in one line (`[start, end)` characters, the first
        `MAX_SPANS`, within its first `SPAN_CAP` characters; empty matches left out)."""
        text = text[:SPAN_CAP]
        if self._regex is None:
            size, found, at = len(self.source), list[tuple[int, int]](), text.find(self.source)
            while at >= 0 and len(found) < MAX_SPANS:
                found.append((at, at + size))
                at = text.find(self.source, at + size)
            return tuple(found)
        matches = (m.span() for m in self._regex.finditer(text))
        return tuple(islice(((a, b) for a, b in matches if b > a), MAX_SPANS))


def compile_pattern(pattern: str, regex: bool) -> Pattern:
    """`pattern` as a literal, or as a Python `re` regex run by RE2.

    Raises ValueError (one sentence) for an empty, invalid or unsupported pattern."""
    if not pattern:
        raise ValueError("the pattern is empty")
    if not regex:
        return Pattern(pattern, None)
    try:
        spelled = to_re2(pattern)
    except re.error as exc:
        raise ValueError(f"{pattern!r} is not a valid regex ({exc}); "
                         "use --exact for a literal") from None
    except Unsupported as exc:
        raise ValueError(f"{pattern!r} uses {exc}, which the linear-time regex engine "
                         "does not run; rewrite it without, or use --exact") from None
    options = re2.Options()
    options.log_errors = False  # RE2 would write each refusal to stderr
    options.never_nl = True  # a match never crosses a line end: files are searched whole
    try:
        return Pattern(pattern, re2.compile("(?m)" + spelled, options))
    except re2.error as exc:
        why = exc.args[0].decode(errors="replace") if exc.args and \
            isinstance(exc.args[0], bytes) else str(exc)
        raise ValueError(f"{pattern!r} cannot be searched ({why})") from None
