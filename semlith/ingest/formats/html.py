"""HTML (EPUB chapters, HTML mail bodies) -> Markdown-like blocks.

Unlike `page.read_page`, which keeps every source line where it is (so a page's hits
point at its own lines), this renders structure: `h1`-`h6` become headings, paragraphs,
list items and table rows become lines. `html.parser` knows HTML's named references
and reads no DTD, so nothing is fetched or expanded.
"""

from __future__ import annotations

from html.parser import HTMLParser

from semlith.ingest.formats.text import Text, cell_text, one_line
from semlith.ingest.formats.xmlstream import Budget, XmlLimit

_HIDDEN = frozenset({"script", "style", "head", "template", "svg", "math"})
_BLOCKS = frozenset({"p", "div", "li", "br", "blockquote", "pre", "section", "article",
                     "dt", "dd", "figcaption", "table", "ul", "ol", "hr", "aside", "nav",
                     "header", "footer", "body", "main"})
_HEADINGS = {f"h{n}": n for n in range(1, 7)}


class _Blocks(HTMLParser):
    def __init__(self, out: Text, demote: int, budget: Budget) -> None:
        super().__init__(convert_charrefs=True)
        self.out = out
        self.budget = budget
        self.demote = demote
        self.hidden: list[str] = []  # open hidden elements (a <head> holds <style>...)
        self.buffer: list[str] = []
        self.heading = 0
        self.item = False  # the open block is a list item
        self.row: list[str] | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # The same element cap as XML parts: 64 MB of empty tags would otherwise be
        # parsed whole, with nothing written to reach the text cap.
        self.budget.left -= 1
        if self.budget.left < 0:
            raise XmlLimit(f"more than {self.budget.cap:,} HTML elements")
        if tag in _HIDDEN:
            self.hidden.append(tag)
        elif self.hidden:
            return
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "tr":
            self._flush()
            self.row = []
        elif tag in _HEADINGS:
            self._flush()
            self.heading = _HEADINGS[tag]
        elif tag in _BLOCKS:
            self._flush()
            self.item = tag == "li"

    def handle_endtag(self, tag: str) -> None:
        if self.hidden and tag == self.hidden[-1]:
            self.hidden.pop()
        elif self.hidden:
            return
        elif tag in ("td", "th") and self.cell is not None:
            if self.row is not None:
                self.row.append(one_line("".join(self.cell)))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            if any(self.row):
                self.out.line("| " + " | ".join(cell_text(c) for c in self.row) + " |")
            self.row = None
        elif tag in _HEADINGS or tag in _BLOCKS:
            self._flush()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCKS and not self.hidden:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        (self.cell if self.cell is not None else self.buffer).append(data)

    def _flush(self) -> None:
        text = one_line("".join(self.buffer))
        self.buffer = []
        if text and self.heading:
            self.out.heading(self.heading + self.demote, text)
        elif text:
            self.out.line(f"- {text}" if self.item else text)
        self.heading = 0


def html_blocks(source: str, out: Text, budget: Budget, *, demote: int = 0) -> None:
    """Write the blocks of an HTML page into `out`; headings move down `demote` levels.

    Raises:
        XmlLimit: the page (with what `budget` already counted) has too many elements.
    """
    parser = _Blocks(out, demote, budget)
    parser.feed(source)
    parser.close()
    parser._flush()
