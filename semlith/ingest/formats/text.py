"""The Markdown-like text every document reader writes, bounded in size.

Readers render structure the chunker already understands (`chunk.py` cuts Markdown at
its headings): a heading is a `# ` line, a sheet, slide or message is a `## ` section.
Content lines that would read as Markdown structure (a paragraph starting with `#`, a
line of backticks that would open a fence and hide every later heading) get a leading
backslash, as Markdown escapes them.
"""

from __future__ import annotations

import re

from semlith.ingest.formats.limits import MAX_TEXT_CHARS

_STRUCTURE = re.compile(r"^(#|\s*```|\s*~~~)")
_SPACES = re.compile(r"\s+")


class TextFull(Exception):
    """The text reached its size cap; what was written so far is kept."""


class Text:
    """Lines of extracted text, at most `limit` characters; `add` past it raises TextFull."""

    # Room is left under the cap for the `[truncated: ...]` line.
    def __init__(self, limit: int = MAX_TEXT_CHARS - 200) -> None:
        self.limit = limit
        self.size = 0
        self._lines: list[str] = []

    def heading(self, level: int, title: str) -> None:
        """A `#` heading line (levels past 6 are 6), after a blank line."""
        self.blank()
        self._add(f"{'#' * max(1, min(level, 6))} {one_line(title)}".rstrip())

    def line(self, text: str) -> None:
        """Content; each of its lines is escaped where it would read as structure."""
        for piece in text.split("\n"):
            self._add("\\" + piece if _STRUCTURE.match(piece) else piece)

    def raw(self, text: str) -> None:
        """Text already rendered by a reader (an attachment's), added as it is."""
        for piece in text.split("\n"):
            self._add(piece)

    def blank(self) -> None:
        if self._lines and self._lines[-1]:
            self._add("")

    def truncated(self, why: str) -> None:
        """Ends the text with a line saying what was left out, and why."""
        self.blank()
        self._lines.append(f"[truncated: {why}]")

    def text(self) -> str:
        return "\n".join(self._lines).strip("\n")

    def _add(self, line: str) -> None:
        if self.size + len(line) + 1 > self.limit:
            raise TextFull()
        self._lines.append(line)
        self.size += len(line) + 1


def one_line(text: str) -> str:
    """Whitespace (newlines too) collapsed to single spaces: headings are one line."""
    return _SPACES.sub(" ", text).strip()


def cell_text(text: str) -> str:
    """A table cell on one line, its pipes escaped so columns stay apart."""
    return one_line(text).replace("|", "\\|")
