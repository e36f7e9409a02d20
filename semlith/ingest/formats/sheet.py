"""Sheets (Excel and OpenDocument) as blocks of rows that each fit one chunk.

A sheet is a `## Sheet: name` section. Its rows are cut into `### name, rows a-b`
blocks small enough for one chunk (`chunk.MAX_CHARS`), and every block repeats the
sheet's header row (its first non-empty row), so a chunk of row 5,000 still says what
its columns are. Rows are `| a | b |` lines with empty cells kept, so columns line up.
"""

from __future__ import annotations

from semlith.ingest.chunk import MAX_CHARS
from semlith.ingest.formats.limits import MAX_ROW_CELLS, MAX_SHEET_ROWS
from semlith.ingest.formats.text import Text, cell_text, one_line

# A block's heading, header and rows; ~90% of a chunk leaves room for the heading path
# the chunker prepends when embedding.
BLOCK_CHARS = MAX_CHARS * 9 // 10


class SheetFull(Exception):
    """The sheet passed MAX_SHEET_ROWS rows; the reader goes on to the next sheet."""


class SheetWriter:
    """Takes a sheet's rows in order and writes them as blocks into `out`."""

    def __init__(self, out: Text, name: str) -> None:
        self.out = out
        self.name = one_line(name) or "(unnamed)"
        self.header = ""
        self.block: list[tuple[int, str]] = []  # (row number, line)
        self.size = 0
        self.rows_seen = 0
        self.wide = False
        out.heading(2, f"Sheet: {self.name}")

    def see(self, count: int = 1) -> None:
        """Counts rows looked at (empty ones too); raises SheetFull past the cap."""
        self.rows_seen += count
        if self.rows_seen > MAX_SHEET_ROWS:
            self.finish()
            self.out.truncated(f"sheet {self.name!r} has more than {MAX_SHEET_ROWS:,} rows")
            raise SheetFull()

    def row(self, number: int, cells: list[str]) -> None:
        """One non-empty row (`number` as the sheet shows it); trailing empties dropped."""
        if len(cells) > MAX_ROW_CELLS:
            self.wide = self.wide or any(c.strip() for c in cells[MAX_ROW_CELLS:])
            cells = cells[:MAX_ROW_CELLS]
        while cells and not cells[-1].strip():
            cells.pop()
        if not cells:
            return
        line = "| " + " | ".join(cell_text(c) for c in cells) + " |"
        if not self.header:
            self.header = line
        if self.block and self.size + len(line) + 1 > BLOCK_CHARS:
            self._flush()
        self.block.append((number, line))
        self.size += len(line) + 1

    def finish(self) -> None:
        self._flush()
        if self.wide:
            self.out.line(f"(rows of sheet {self.name!r} cut at {MAX_ROW_CELLS} cells)")

    def _flush(self) -> None:
        if not self.block:
            return
        first, last = self.block[0][0], self.block[-1][0]
        self.out.heading(3, f"{self.name}, rows {first}-{last}" if last != first
                         else f"{self.name}, row {first}")
        if self.block[0][1] != self.header:
            self.out.line(self.header)
        for _, line in self.block:
            self.out.line(line)
        self.block = []
        self.size = len(self.header) + len(self.name) + 20
