"""Bytes -> text as every text reader decodes them: UTF-8, or UTF-16/32 when a byte order
mark says so, bad bytes replaced, line ends made "\\n" (so line N is the line editors
show)."""

from __future__ import annotations

import codecs

from semlith.ingest.formats.limits import MAX_TEXT_CHARS

# UTF-8 can take 4 bytes a character; no more input than this can reach the output.
MAX_INPUT_BYTES = 4 * MAX_TEXT_CHARS
BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16 LE, whose BOM it starts with
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
    (codecs.BOM_UTF8, "utf-8-sig"),
)
BOM_PREFIXES = tuple(bom for bom, _ in BOMS)


def decode(data: bytes) -> str:
    """UTF-8 (or UTF-16/32 with a BOM) with bad bytes replaced, line ends made "\\n"."""
    return newlines(data.decode(bom_encoding(data) or "utf-8", errors="replace"))


def newlines(text: str) -> str:
    """CRLF and lone CR become LF, so line numbers match what editors show."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def bom_encoding(data: bytes) -> str | None:
    return next((encoding for bom, encoding in BOMS if data.startswith(bom)), None)
