"""PowerPoint (.pptx): one `## Slide N: title` section per slide, in the deck's order.

A slide's title is the text of its title placeholder; the rest of its shapes follow in
document order (tables as `| a | b |` rows), then its speaker notes, which often hold
the prose a deck leaves out.
"""

from __future__ import annotations

from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.formats.ooxml import R_ID, elements, main_part, relations
from semlith.ingest.formats.package import Package
from semlith.ingest.formats.text import Text, cell_text, one_line
from semlith.ingest.formats.xmlstream import Budget, parse_xml, tag

P = tag("http://schemas.openxmlformats.org/presentationml/2006/main")
A = tag("http://schemas.openxmlformats.org/drawingml/2006/main")
# Tags, made once: a call per comparison cost 6% of a sheet's time (profiled).
_A_BR = A("br")
_A_P = A("p")
_A_T = A("t")
_A_TC = A("tc")
_A_TR = A("tr")
_P_PH = P("ph")
_P_SLD_ID = P("sldId")
_P_SP = P("sp")
_TITLES = frozenset({"title", "ctrTitle"})


def read_pptx(data: bytes, out: Text, depth: int) -> None:
    package = Package(data, "PowerPoint deck")
    budget = Budget()
    deck = main_part(package, budget)
    rels = {r.id: r.target for r in relations(package, deck, budget)}
    slides = [rels.get(a.get(R_ID, ""), "") for _, a in elements(package, deck, budget,
                                                                   _P_SLD_ID)]
    for number, part in enumerate((s for s in slides if package.has(s)), start=1):
        slide = _shapes(package, part, budget)
        out.heading(2, f"Slide {number}: {slide.title}" if slide.title else f"Slide {number}")
        for line in slide.lines:
            out.line(line)
        notes = [r.target for r in relations(package, part, budget)
                 if r.type.endswith("/notesSlide") and package.has(r.target)]
        if notes:
            try:
                spoken = _shapes(package, notes[0], budget, only="body").lines
            except Unreadable as exc:  # the slides are still worth having
                spoken = [f"(notes not read: {exc})"]
            if spoken:
                out.blank()
                out.line("Notes:")
                for line in spoken:
                    out.line(line)


def _shapes(package: Package, part: str, budget: Budget, only: str = "") -> _Shapes:
    handler = _Shapes(only)
    with package.open(part) as stream:
        parse_xml(stream, handler, budget, name=part)
    return handler


class _Shapes:
    """A slide's (or notes page's) title and text lines; `only` keeps one placeholder
    type (the notes page's "body": its other shapes are the slide image and number)."""

    def __init__(self, only: str) -> None:
        self.only = only
        self.title = ""
        self.lines: list[str] = []
        self.shape: list[str] = []  # paragraphs of the open shape
        self.placeholder = ""  # the open shape's placeholder type
        self.paragraph: list[str] = []
        self.cells: list[str] | None = None  # paragraphs of an open table cell
        self.row: list[str] = []
        self.in_text = 0

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == _A_T:
            self.in_text += 1
        elif name == _A_P:
            self.paragraph = []
        elif name == _A_BR:
            self.paragraph.append("\n")
        elif name == _P_SP:
            self.shape, self.placeholder = [], ""
        elif name == _P_PH:
            self.placeholder = attrs.get("type", "body")
        elif name == _A_TC:
            self.cells = []
        elif name == _A_TR:
            self.row = []

    def end(self, name: str) -> None:
        if name == _A_T:
            self.in_text -= 1
        elif name == _A_P:
            text = "".join(self.paragraph)
            if self.cells is not None:
                self.cells.append(one_line(text))
            elif text.strip():
                self.shape.append(text)
        elif name == _A_TC and self.cells is not None:
            self.row.append(" ".join(c for c in self.cells if c))
            self.cells = None
        elif name == _A_TR and any(self.row) and not self.only:
            self.lines.append("| " + " | ".join(cell_text(c) for c in self.row) + " |")
        elif name == _P_SP:
            self._shape_done()

    def text(self, data: str) -> None:
        if self.in_text:
            self.paragraph.append(data)

    def _shape_done(self) -> None:
        if self.only and self.placeholder != self.only:
            return
        if self.placeholder in _TITLES and not self.title:
            self.title = one_line(" ".join(self.shape))
        elif self.shape:
            self.lines.extend(self.shape)
