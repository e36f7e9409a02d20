"""An HTML page's text, every piece on the line it has in the source, so a page's hits
point at its own lines (unlike `html.py`, which renders EPUB chapters and mail bodies
as Markdown-like blocks)."""

from __future__ import annotations

from html import unescape
from html.parser import HTMLParser

from semlith.ingest.formats.decoding import MAX_INPUT_BYTES, decode
from semlith.ingest.formats.limits import MAX_TEXT_CHARS

# What follows "<" when it opens markup: a tag name, "/", "!" (comments) or "?"; nothing
# (the end of the text) may be any of them.
_MARKUP_START = frozenset("/!?abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


class _PageText(HTMLParser):
    """Collects a page's text, placing each piece on the line it has in the source."""

    _HIDDEN = frozenset({"script", "style"})

    def __init__(self) -> None:
        # Character references are decoded here so "&#10;" cannot add a line.
        super().__init__(convert_charrefs=False)
        self.parts: list[str] = []
        self.line = 1
        self.hidden: str | None = None  # the script or style element we are inside

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._HIDDEN:
            self.hidden = tag
        self._add(" ")  # keeps words in neighbouring cells apart

    def handle_endtag(self, tag: str) -> None:
        if tag == self.hidden:
            self.hidden = None

    def handle_data(self, data: str) -> None:
        if self.hidden is None:
            self._add(data)

    def handle_entityref(self, name: str) -> None:
        self._reference(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self._reference(f"&#{name};")

    def _reference(self, reference: str) -> None:
        """A decoded reference; "&#10;" or "&NewLine;" must not move later text down a line."""
        self.handle_data(unescape(reference).replace("\n", " ").replace("\r", " "))

    def _add(self, text: str) -> None:
        line = self.getpos()[0]
        if line > self.line:
            self.parts.append("\n" * (line - self.line))
            self.line = line
        self.parts.append(text)
        self.line += text.count("\n")


def read_page(data: bytes) -> str:
    source = decode(data[:MAX_INPUT_BYTES])[:MAX_TEXT_CHARS]
    parser = _PageText()
    parser.feed(_closed(source))
    parser.close()
    text = "".join(parser.parts)
    return text + "\n" * (source.count("\n") - text.count("\n"))


def _closed(source: str) -> str:
    """`source` without the tag, comment or declaration its end leaves open: HTMLParser
    gives an unfinished one as text, so a page cut at MAX_TEXT_CHARS (or truncated on
    disk) ended its last chunk with "</" or "<div cla" (issue #26)."""
    start = source.rfind("<")
    after = source[start + 1 : start + 2]
    if start >= 0 and (after in _MARKUP_START or not after) and source.find(">", start) < 0:
        return source[:start]
    return source
