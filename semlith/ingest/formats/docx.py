"""Word (.docx): headings, paragraphs, lists and tables of the main document, in order.

Headings are the paragraphs whose style is a heading: styles.xml names built-in styles
in English ("heading 2") whatever the user's language, and a style's outline level
(its own or one it is based on) says the same for custom ones. Deleted tracked changes
(`w:delText`) and field codes are not text; text boxes are read where they stand.
"""

from __future__ import annotations

import contextlib
import re

from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.formats.ooxml import elements, main_part
from semlith.ingest.formats.package import Package
from semlith.ingest.formats.text import Text, cell_text, one_line
from semlith.ingest.formats.xmlstream import Budget, parse_xml, tag

W = tag("http://schemas.openxmlformats.org/wordprocessingml/2006/main")
# Tags, made once: a call per comparison cost 6% of a sheet's time (profiled).
_W_BASED_ON = W("basedOn")
_W_BR = W("br")
_W_CR = W("cr")
_W_ILVL = W("ilvl")
_W_NAME = W("name")
_W_NO_BREAK_HYPHEN = W("noBreakHyphen")
_W_NUM_PR = W("numPr")
_W_OUTLINE_LVL = W("outlineLvl")
_W_P = W("p")
_W_P_STYLE = W("pStyle")
_W_R = W("r")
_W_STYLE = W("style")
_W_STYLE_ID = W("styleId")
_W_T = W("t")
_W_TAB = W("tab")
_W_TBL = W("tbl")
_W_TC = W("tc")
_W_TR = W("tr")
_W_TYPE = W("type")
_W_VAL = W("val")
_VAL = _W_VAL
_HEADING_NAME = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
_BREAKS = {_W_TAB: "\t", _W_BR: "\n", _W_CR: "\n", _W_NO_BREAK_HYPHEN: "-"}


def read_docx(data: bytes, out: Text, depth: int) -> None:
    package = Package(data, "Word document")
    budget = Budget()
    part = main_part(package, budget)
    styles = "word/styles.xml"
    levels: dict[str, int] = {}
    lists: set[str] = set()
    # Styles only name the headings: a broken styles part costs those, not the text.
    if package.has(styles):
        with contextlib.suppress(Unreadable):
            levels, lists = paragraph_styles(package, styles, budget)
    with package.open(part) as stream:
        parse_xml(stream, _Body(out, levels, lists), budget, name=part)


def paragraph_styles(package: Package, part: str,
                     budget: Budget) -> tuple[dict[str, int], set[str]]:
    """Paragraph style id -> heading level (1-9) for every heading style; and the ids of
    list styles ("List Bullet": numbered by the style, not the paragraph)."""
    found = elements(package, part, budget, _W_STYLE, _W_NAME, _W_BASED_ON,
                     _W_OUTLINE_LVL, _W_NUM_PR)
    own: dict[str, int] = {}
    lists: set[str] = set()
    parent: dict[str, str] = {}
    style = ""
    for name, attrs in found:
        if name == _W_STYLE:
            style = attrs.get(_W_STYLE_ID, "") if attrs.get(_W_TYPE) == "paragraph" else ""
        elif not style:
            continue
        elif name == _W_NAME:
            match = _HEADING_NAME.match(attrs.get(_VAL, ""))
            if match or attrs.get(_VAL, "").lower() == "title":
                own.setdefault(style, int(match.group(1)) if match else 1)
        elif name == _W_BASED_ON:
            parent[style] = attrs.get(_VAL, "")
        elif name == _W_NUM_PR:
            lists.add(style)
        elif name == _W_OUTLINE_LVL and attrs.get(_VAL, "").isdigit() and \
                int(attrs[_VAL]) < 9:  # level 9 is "body text"
            own[style] = int(attrs[_VAL]) + 1
    levels = {}
    for style in set(own) | set(parent):
        seen, current = set(), style
        while current and current not in own and current not in seen:
            seen.add(current)
            current = parent.get(current, "")
        if current in own:
            levels[style] = own[current]
    return levels, lists


class _Body:
    """document.xml events -> Markdown-like lines."""

    def __init__(self, out: Text, levels: dict[str, int], lists: set[str]) -> None:
        self.out = out
        self.levels = levels
        self.lists = lists
        self.paragraphs: list[list[str]] = []  # a text box's paragraph sits inside another
        self.kind: list[tuple[int, int]] = []  # per open paragraph: heading level, list level
        self.cells: list[list[str]] = []  # paragraphs of each open table cell
        self.rows: list[list[str]] = []  # cells of each open table row
        self.in_text = 0
        self.in_run = 0  # a <w:tab/> outside a run is a tab stop, not text

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == _W_T:
            self.in_text += 1
        elif name == _W_R:
            self.in_run += 1
        elif name in _BREAKS and self.paragraphs and self.in_run:
            self.paragraphs[-1].append(_BREAKS[name])
        elif name == _W_P:
            self.paragraphs.append([])
            self.kind.append((0, -1))
        elif name == _W_P_STYLE and self.kind:
            style = attrs.get(_VAL, "")
            self.kind[-1] = (self.levels.get(style, 0), 0 if style in self.lists else -1)
        elif name == _W_OUTLINE_LVL and self.kind and attrs.get(_VAL, "").isdigit():
            level = int(attrs[_VAL])
            self.kind[-1] = (level + 1 if level < 9 else 0, self.kind[-1][1])
        elif name == _W_ILVL and self.kind and attrs.get(_VAL, "").isdigit():
            self.kind[-1] = (self.kind[-1][0], int(attrs[_VAL]))
        elif name == _W_NUM_PR and self.kind:
            self.kind[-1] = (self.kind[-1][0], max(self.kind[-1][1], 0))
        elif name == _W_TC:
            self.cells.append([])
        elif name == _W_TR:
            self.rows.append([])
        elif name == _W_TBL and not self.cells:
            self.out.blank()

    def end(self, name: str) -> None:
        if name == _W_T:
            self.in_text -= 1
        elif name == _W_R:
            self.in_run -= 1
        elif name == _W_P and self.paragraphs:
            self._paragraph("".join(self.paragraphs.pop()), *self.kind.pop())
        elif name == _W_TC and self.cells:
            cell = " ".join(p for p in self.cells.pop() if p.strip())
            if self.rows:
                self.rows[-1].append(cell)
        elif name == _W_TR and self.rows:
            row = self.rows.pop()
            if self.cells:  # a table inside a cell: its rows join the outer cell's text
                self.cells[-1].append("; ".join(c for c in row if c))
            elif any(c.strip() for c in row):
                self.out.line("| " + " | ".join(cell_text(c) for c in row) + " |")
        elif name == _W_TBL and not self.cells:
            self.out.blank()

    def text(self, data: str) -> None:
        if self.in_text and self.paragraphs:
            self.paragraphs[-1].append(data)

    def _paragraph(self, text: str, heading: int, list_level: int) -> None:
        if self.cells:
            self.cells[-1].append(one_line(text))
        elif heading and text.strip():
            self.out.heading(heading, text)
        elif list_level >= 0 and text.strip():
            self.out.line(f"{'  ' * list_level}- {text}")
        elif text.strip():
            self.out.blank()
            self.out.line(text)
