"""Excel (.xlsx): every sheet in workbook order, as header-carrying blocks of rows.

Cells show their cached values (a formula's last result), shared and inline strings,
TRUE/FALSE, and dates as ISO dates where the cell's number format is a date format.
A sheet stops at MAX_SHEET_ROWS rows looked at (a million empty rows cost ~0.1 s),
then the next sheet is read.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from semlith.ingest.formats.limits import MAX_ROW_CELLS, MAX_SHARED_STRINGS, Unreadable
from semlith.ingest.formats.ooxml import R_ID, elements, main_part, relations
from semlith.ingest.formats.package import Package
from semlith.ingest.formats.sheet import SheetFull, SheetWriter
from semlith.ingest.formats.text import Text
from semlith.ingest.formats.xmlstream import Budget, parse_xml, tag

S = tag("http://schemas.openxmlformats.org/spreadsheetml/2006/main")
# Tags, made once: a call per comparison cost 6% of a sheet's time (profiled).
_S_C = S("c")
_S_CELL_XFS = S("cellXfs")
_S_NUM_FMT = S("numFmt")
_S_R_PH = S("rPh")
_S_ROW = S("row")
_S_SHEET = S("sheet")
_S_SI = S("si")
_S_T = S("t")
_S_V = S("v")
_S_XF = S("xf")
_CELL_REF = re.compile(r"([A-Z]{1,3})([0-9]+)")
# Built-in number formats that show dates (ECMA-376 part 1, 18.8.30).
_DATE_FORMATS = frozenset({14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47})
_QUOTED = re.compile(r'"[^"]*"|\[[^\]]*\]|\\.')
_EPOCH = datetime(1899, 12, 30)  # Excel's day 0 (after its 1900 leap-year bug)


def read_xlsx(data: bytes, out: Text, depth: int) -> None:
    package = Package(data, "Excel workbook")
    budget = Budget()
    workbook = main_part(package, budget)
    rels = {r.id: r for r in relations(package, workbook, budget)}
    kinds = {r.type.rsplit("/", 1)[-1]: r.target for r in rels.values()}
    shared = _shared_strings(package, kinds.get("sharedStrings", ""), budget)
    try:
        dates = _date_styles(package, kinds.get("styles", ""), budget)
    except Unreadable:  # without styles, dates read as serial numbers; nothing is lost
        dates = set()
    for _, attrs in elements(package, workbook, budget, _S_SHEET):
        relation = rels.get(attrs.get(R_ID, ""))
        if relation is None or not package.has(relation.target):
            continue  # a chart sheet or a dangling entry: no cells
        writer = SheetWriter(out, attrs.get("name", ""))
        try:
            with package.open(relation.target) as stream:
                parse_xml(stream, _Cells(writer, shared, dates), budget, name=relation.target)
        except SheetFull:
            continue
        writer.finish()


class _Strings:
    def __init__(self) -> None:
        self.strings: list[str] = []
        self.parts: list[str] = []
        self.depth_t = 0
        self.in_phonetic = 0

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == _S_T:
            self.depth_t += 1
        elif name == _S_R_PH:  # a reading aid for East Asian text, not the text
            self.in_phonetic += 1

    def end(self, name: str) -> None:
        if name == _S_T:
            self.depth_t -= 1
        elif name == _S_R_PH:
            self.in_phonetic -= 1
        elif name == _S_SI and len(self.strings) < MAX_SHARED_STRINGS:
            self.strings.append("".join(self.parts))
            self.parts = []
        elif name == _S_SI:
            self.parts = []

    def text(self, data: str) -> None:
        if self.depth_t and not self.in_phonetic:
            self.parts.append(data)


def _shared_strings(package: Package, part: str, budget: Budget) -> list[str]:
    if not part or not package.has(part):
        return []
    handler = _Strings()
    with package.open(part) as stream:
        parse_xml(stream, handler, budget, name=part)
    return handler.strings


def _date_styles(package: Package, part: str, budget: Budget) -> set[int]:
    """Indexes of the cell styles (`s=`) whose number format shows a date."""
    if not part or not package.has(part):
        return set()
    found = elements(package, part, budget, _S_NUM_FMT, _S_CELL_XFS, _S_XF)
    custom = {int(a.get("numFmtId", "-1")): a.get("formatCode", "") for n, a in found
              if n == _S_NUM_FMT and a.get("numFmtId", "").isdigit()}
    dates, index, in_cells = set(), 0, False
    for name, attrs in found:
        if name == _S_CELL_XFS:
            in_cells = True  # the xf elements before this are cellStyleXfs
        elif name == _S_XF and in_cells:
            fmt = int(attrs.get("numFmtId", "0")) if attrs.get("numFmtId", "").isdigit() else 0
            if fmt in _DATE_FORMATS or (fmt in custom and _is_date_code(custom[fmt])):
                dates.add(index)
            index += 1
    return dates


def _is_date_code(code: str) -> bool:
    return bool(re.search(r"[dy]", _QUOTED.sub("", code).lower()))


class _Cells:
    """sheetN.xml events -> rows for the SheetWriter."""

    def __init__(self, writer: SheetWriter, shared: list[str], dates: set[int]) -> None:
        self.writer = writer
        self.shared = shared
        self.dates = dates
        self.row_number = 0
        self.cells: list[str] = []
        self.cell: dict[str, str] = {}
        self.value: list[str] = []
        self.in_value = 0

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == _S_C:
            self.cell = attrs
            self.value = []
        elif name in (_S_V, _S_T):
            self.in_value += 1
        elif name == _S_ROW:
            self.writer.see()
            number = attrs.get("r", "")
            self.row_number = int(number) if number.isdigit() else self.row_number + 1
            self.cells = []

    def end(self, name: str) -> None:
        if name in (_S_V, _S_T):
            self.in_value -= 1
        elif name == _S_C:
            self._place(self._value())
        elif name == _S_ROW and self.cells:
            self.writer.row(self.row_number, self.cells)

    def text(self, data: str) -> None:
        if self.in_value:
            self.value.append(data)

    def _place(self, value: str) -> None:
        if not value:
            return
        match = _CELL_REF.fullmatch(self.cell.get("r", ""))
        column = _column(match.group(1)) if match else len(self.cells)
        column = min(column, MAX_ROW_CELLS)  # past the cap: the writer cuts it, says so
        self.cells.extend([""] * (column - len(self.cells) + 1))
        self.cells[column] = value

    def _value(self) -> str:
        raw = "".join(self.value)
        kind = self.cell.get("t", "n")
        if kind == "s":
            index = int(raw) if raw.strip().isdigit() else -1
            return self.shared[index] if 0 <= index < len(self.shared) else ""
        if kind == "b":
            return "TRUE" if raw.strip() == "1" else "FALSE"
        if kind != "n" or not raw:
            return raw  # inline and formula strings, errors (#N/A)
        try:
            number = float(raw)
        except ValueError:
            return raw
        style = self.cell.get("s", "")
        if style.isdigit() and int(style) in self.dates and 0 <= number < 2_958_466:
            moment = _EPOCH + timedelta(days=number)
            return moment.date().isoformat() if moment.time() == datetime.min.time() \
                else moment.isoformat(sep=" ", timespec="minutes")
        return f"{number:.15g}"


def _column(letters: str) -> int:
    """"A" -> 0, "AB" -> 27."""
    index = 0
    for letter in letters:
        index = index * 26 + ord(letter) - 64
    return index - 1


