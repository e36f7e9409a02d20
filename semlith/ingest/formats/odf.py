"""OpenDocument text, spreadsheet and presentation (.odt, .ods, .odp) from content.xml.

Text documents give their headings (`text:h` with its outline level), paragraphs,
lists and tables; spreadsheets one header-carrying block section per sheet (sheet.py);
presentations one `## Slide N: title` section per page with its notes. A repeated row
or cell (`number-rows-repeated="1048000"`, which LibreOffice writes below every sheet)
is never expanded when empty, and a non-empty one counts each copy against the caps.
Deleted tracked changes and comments are not text. An encrypted file (its manifest
lists encryption data for content.xml) is skipped as password-protected.
"""

from __future__ import annotations

from semlith.ingest.formats.limits import MAX_ROW_CELLS, Unreadable
from semlith.ingest.formats.ooxml import elements
from semlith.ingest.formats.package import Package
from semlith.ingest.formats.sheet import SheetFull, SheetWriter
from semlith.ingest.formats.text import Text, cell_text, one_line
from semlith.ingest.formats.xmlstream import Budget, parse_xml, tag

TEXT = tag("urn:oasis:names:tc:opendocument:xmlns:text:1.0")
TABLE = tag("urn:oasis:names:tc:opendocument:xmlns:table:1.0")
DRAW = tag("urn:oasis:names:tc:opendocument:xmlns:drawing:1.0")
OFFICE = tag("urn:oasis:names:tc:opendocument:xmlns:office:1.0")
PRESENTATION = tag("urn:oasis:names:tc:opendocument:xmlns:presentation:1.0")
MANIFEST = tag("urn:oasis:names:tc:opendocument:xmlns:manifest:1.0")
STYLE = tag("urn:oasis:names:tc:opendocument:xmlns:style:1.0")
# Tags, made once: a call per comparison cost 6% of a sheet's time (profiled).
_DRAW_FRAME = DRAW("frame")
_DRAW_PAGE = DRAW("page")
_DRAW_PAGE_THUMBNAIL = DRAW("page-thumbnail")
_MANIFEST_ENCRYPTION_DATA = MANIFEST("encryption-data")
_MANIFEST_FILE_ENTRY = MANIFEST("file-entry")
_MANIFEST_FULL_PATH = MANIFEST("full-path")
_OFFICE_ANNOTATION = OFFICE("annotation")
_OFFICE_FORMS = OFFICE("forms")
_PRESENTATION_CLASS = PRESENTATION("class")
_PRESENTATION_NOTES = PRESENTATION("notes")
_STYLE_NAME = STYLE("name")
_STYLE_PARENT_STYLE_NAME = STYLE("parent-style-name")
_STYLE_STYLE = STYLE("style")
_TABLE_COVERED_TABLE_CELL = TABLE("covered-table-cell")
_TABLE_NAME = TABLE("name")
_TABLE_NUMBER_COLUMNS_REPEATED = TABLE("number-columns-repeated")
_TABLE_NUMBER_ROWS_REPEATED = TABLE("number-rows-repeated")
_TABLE_TABLE = TABLE("table")
_TABLE_TABLE_CELL = TABLE("table-cell")
_TABLE_TABLE_ROW = TABLE("table-row")
_TEXT_C = TEXT("c")
_TEXT_H = TEXT("h")
_TEXT_LINE_BREAK = TEXT("line-break")
_TEXT_LIST = TEXT("list")
_TEXT_NOTE_CITATION = TEXT("note-citation")
_TEXT_OUTLINE_LEVEL = TEXT("outline-level")
_TEXT_P = TEXT("p")
_TEXT_S = TEXT("s")
_TEXT_SEQUENCE_DECLS = TEXT("sequence-decls")
_TEXT_STYLE_NAME = TEXT("style-name")
_TEXT_TAB = TEXT("tab")
_TEXT_TRACKED_CHANGES = TEXT("tracked-changes")
# Frames that hold no content of a slide (LibreOffice's placeholders for fields).
_FIELD_FRAMES = frozenset({"page-number", "footer", "header", "date-time"})
_SKIPPED = frozenset({_TEXT_TRACKED_CHANGES, _OFFICE_ANNOTATION, _TEXT_NOTE_CITATION,
                      _OFFICE_FORMS, _TEXT_SEQUENCE_DECLS, _DRAW_PAGE_THUMBNAIL})
_CELLS = frozenset({_TABLE_TABLE_CELL, _TABLE_COVERED_TABLE_CELL})
_BREAKS = {_TEXT_TAB: "\t", _TEXT_LINE_BREAK: "\n"}


def read_odt(data: bytes, out: Text, depth: int) -> None:
    _read(data, out, "OpenDocument text", "text")


def read_ods(data: bytes, out: Text, depth: int) -> None:
    _read(data, out, "OpenDocument spreadsheet", "sheet")


def read_odp(data: bytes, out: Text, depth: int) -> None:
    _read(data, out, "OpenDocument presentation", "slides")


def _read(data: bytes, out: Text, kind: str, mode: str) -> None:
    package = Package(data, kind)
    budget = Budget()
    if package.has("META-INF/manifest.xml") and _encrypted(package, budget):
        raise Unreadable(f"encrypted {kind} (password-protected)")
    with package.open("content.xml") as stream:
        parse_xml(stream, _Content(out, mode), budget, name="content.xml")


def _encrypted(package: Package, budget: Budget) -> bool:
    """Whether the manifest gives content.xml encryption data (it follows the entry)."""
    entry = ""
    for name, attrs in elements(package, "META-INF/manifest.xml", budget,
                                _MANIFEST_FILE_ENTRY, _MANIFEST_ENCRYPTION_DATA):
        if name == _MANIFEST_FILE_ENTRY:
            entry = attrs.get(_MANIFEST_FULL_PATH, "")
        elif entry == "content.xml":
            return True
    return False


def _count(attrs: dict[str, str], name: str) -> int:
    value = attrs.get(name, "1")
    return int(value) if value.isdigit() and int(value) > 0 else 1


class _Content:
    """content.xml events -> lines; `mode` is "text", "sheet" or "slides"."""

    def __init__(self, out: Text, mode: str) -> None:
        self.out = out
        self.mode = mode
        self.skip = 0  # depth inside a skipped subtree
        self.paragraphs: list[list[str]] = []
        self.levels: list[int] = []  # heading level per open paragraph (0: not a heading)
        self.lists = 0
        self.cells: list[list[str]] = []
        self.repeat: list[int] = []  # number-columns-repeated per open cell
        self.rows: list[list[str]] = []
        self.row_repeat = 1
        self.tables = 0
        self.sheet: SheetWriter | None = None
        self.row_number = 0
        self.frames: list[str] = []  # presentation:class of each open frame
        self.slide: list[str] = []
        self.title = ""
        self.notes: list[str] | None = None  # lines of the open notes, inside a page
        self.page = 0
        self.parents: dict[str, str] = {}  # automatic style -> the style it derives from

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if self.skip or name in _SKIPPED:
            self.skip += 1
        elif name in (_TEXT_P, _TEXT_H):
            self.paragraphs.append([])
            level = _count(attrs, _TEXT_OUTLINE_LEVEL) if name == _TEXT_H else 0
            style = attrs.get(_TEXT_STYLE_NAME, "")
            if self.parents.get(style, style) == "Title":  # a document title paragraph
                level = 1
            self.levels.append(level)
        elif name == _STYLE_STYLE and _STYLE_PARENT_STYLE_NAME in attrs:
            self.parents[attrs.get(_STYLE_NAME, "")] = attrs[_STYLE_PARENT_STYLE_NAME]
        elif name == _TEXT_S and self.paragraphs:
            self.paragraphs[-1].append(" " * min(_count(attrs, _TEXT_C), 100))
        elif name in _BREAKS and self.paragraphs:
            self.paragraphs[-1].append(_BREAKS[name])
        elif name == _TEXT_LIST:
            self.lists += 1
        elif name in _CELLS:
            self.cells.append([])
            self.repeat.append(_count(attrs, _TABLE_NUMBER_COLUMNS_REPEATED))
        elif name == _TABLE_TABLE_ROW:
            self.rows.append([])
            self.row_repeat = _count(attrs, _TABLE_NUMBER_ROWS_REPEATED)
        elif name == _TABLE_TABLE:
            self._table_start(attrs)
        elif name == _DRAW_FRAME:
            self.frames.append(attrs.get(_PRESENTATION_CLASS, ""))
        elif name == _DRAW_PAGE:
            self.page += 1
            self.slide, self.title = [], ""
        elif name == _PRESENTATION_NOTES:
            self.notes = []

    def end(self, name: str) -> None:
        if self.skip:
            self.skip -= 1
        elif name in (_TEXT_P, _TEXT_H) and self.paragraphs:
            self._paragraph("".join(self.paragraphs.pop()), self.levels.pop())
        elif name == _TEXT_LIST:
            self.lists -= 1
        elif name in _CELLS and self.cells:
            text = " ".join(p for p in self.cells.pop() if p)
            count = self.repeat.pop()
            if self.rows:
                row = self.rows[-1]
                row.extend([text] * min(count, MAX_ROW_CELLS + 1 - len(row)))
        elif name == _TABLE_TABLE_ROW and self.rows:
            self._row(self.rows.pop())
        elif name == _TABLE_TABLE:
            self._table_end()
        elif name == _DRAW_FRAME and self.frames:
            self.frames.pop()
        elif name == _PRESENTATION_NOTES:
            pass  # the page's end writes them
        elif name == _DRAW_PAGE:
            self._page_end()

    def text(self, data: str) -> None:
        if self.paragraphs and not self.skip:
            self.paragraphs[-1].append(data)

    def _paragraph(self, text: str, level: int) -> None:
        if self.cells:
            self.cells[-1].append(one_line(text))
        elif not text.strip():
            return
        elif self.mode == "slides":
            frame = self.frames[-1] if self.frames else ""
            if frame in _FIELD_FRAMES:
                return
            if self.notes is not None:
                self.notes.append(text)
            elif self.frames and self.frames[-1] == "title" and not self.title:
                self.title = one_line(text)
            else:
                self.slide.append(text)
        elif level:
            self.out.heading(level, text)
        elif self.lists:
            self.out.line(f"{'  ' * (self.lists - 1)}- {text}")
        else:
            self.out.blank()
            self.out.line(text)

    def _row(self, row: list[str]) -> None:
        if self.sheet is not None and self.tables == 1:
            self._sheet_row(row)
        elif self.cells:  # a table inside a cell joins the outer cell's text
            self.cells[-1].append("; ".join(c for c in row if c))
        elif any(c.strip() for c in row):
            line = "| " + " | ".join(cell_text(c) for c in row) + " |"
            if self.mode == "slides":
                self.slide.append(line)
            else:
                self.out.line(line)

    def _sheet_row(self, row: list[str]) -> None:
        assert self.sheet is not None
        try:
            if not any(c.strip() for c in row):
                self.row_number += self.row_repeat
                self.sheet.see()  # however many copies: nothing is expanded
                return
            for _ in range(self.row_repeat):
                self.row_number += 1
                self.sheet.see()
                self.sheet.row(self.row_number, list(row))
        except SheetFull:
            self.sheet = None  # the rest of this sheet's rows are parsed, not kept

    def _table_start(self, attrs: dict[str, str]) -> None:
        self.tables += 1
        if self.mode == "sheet" and self.tables == 1:
            self.sheet = SheetWriter(self.out, attrs.get(_TABLE_NAME, ""))
            self.row_number = 0
        elif self.tables == 1 and self.mode == "text":
            self.out.blank()

    def _table_end(self) -> None:
        self.tables -= 1
        if self.tables == 0 and self.sheet is not None:
            self.sheet.finish()
            self.sheet = None

    def _page_end(self) -> None:
        self.out.heading(2, f"Slide {self.page}: {self.title}" if self.title
                         else f"Slide {self.page}")
        for line in self.slide:
            self.out.line(line)
        if self.notes:
            self.out.blank()
            self.out.line("Notes:")
            for line in self.notes:
                self.out.line(line)
        self.notes = None
