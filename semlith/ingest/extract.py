"""A file's bytes -> its text, choosing the extractor by extension before looking at bytes.

The formats of `base/formats.py`'s table are read by their readers in `formats/`: PDFs
give the text of their pages, notebooks their cells (with text outputs), HTML its text
with every newline kept (so line N of the text is line N of the file); Office,
OpenDocument, EPUB, RTF and mail documents give Markdown-like text (docs/formats.md).
Anything else is text unless it looks binary. Every extractor is bounded, and any
failure inside one becomes `Unreadable` with a short reason: a bad file costs one
skipped file, never the index run.
"""

from __future__ import annotations

from semlith.ingest.formats import format_by_magic, format_of, read_format
from semlith.ingest.formats.decoding import BOM_PREFIXES, MAX_INPUT_BYTES, bom_encoding, decode
from semlith.ingest.formats.limits import MAX_TEXT_CHARS, Unreadable

__all__ = ["BINARY_SNIFF_BYTES", "MAX_TEXT_CHARS", "Binary", "Unreadable", "decodes_as_is",
           "extract_text", "is_binary", "is_extracted", "is_plain"]

BINARY_SNIFF_BYTES = 8 << 10
# A file that decodes to this share of invalid UTF-8 or more is binary whatever its head
# says (text in a legacy 8-bit encoding has an accented letter here and there: a few %).
# A few bytes of invalid UTF-8 on purpose (a JSON test suite's `["\xff"]`) stay text.
_MOSTLY_INVALID = 0.25
_INVALID_AT_LEAST = 256


class Binary(Unreadable):
    """A file that looks binary (a NUL byte near the start)."""

    def __init__(self) -> None:
        super().__init__("binary")


def is_binary(data: bytes) -> bool:
    """Whether `data` looks binary: a NUL byte in the first 8 KiB, unless it starts with a
    UTF-16 or UTF-32 byte order mark (such text is full of NULs)."""
    return b"\x00" in data[:BINARY_SNIFF_BYTES] and bom_encoding(data) is None


def extract_text(rel: str, data: bytes) -> str:
    """The text of a file, at most MAX_TEXT_CHARS long, with "\\n" line ends.

    Args:
        rel: the file's path; only its name and extension are used.
        data: the file's bytes.

    Raises:
        Binary: a file of no known text-bearing type that looks binary.
        Unreadable: a PDF, notebook or page that cannot be read (corrupt, encrypted...).
    """
    fmt = format_of(rel) or format_by_magic(data)  # Illustrator's `.ai` is a PDF
    try:
        text = read_format(fmt, data) if fmt else _plain(data)
    except Unreadable:
        raise
    except Exception as exc:  # malformed input may fail anywhere inside a parser
        raise Unreadable(f"{fmt.unreadable if fmt else 'text'}: {_brief(exc)}") from exc
    return text[:MAX_TEXT_CHARS]


def is_plain(rel: str, data: bytes) -> bool:
    """Whether `extract_text(rel, data)` only decodes `data` (no document format, no
    markup): the same bytes give the same text in any version."""
    return format_of(rel) is None and format_by_magic(data) is None


def decodes_as_is(data: bytes) -> bool:
    """Whether a plain file's text (`is_plain`) is `data` itself, for bytes `extract_text`
    takes as text (an indexed file's): UTF-8 with no byte order mark, no carriage return
    and no need to be cut. grep then searches the bytes as they are."""
    if len(data) > MAX_TEXT_CHARS or b"\r" in data or data.startswith(BOM_PREFIXES):
        return False
    if data.isascii():
        return True
    try:
        data.decode()
    except UnicodeDecodeError:
        return False  # its bad bytes are U+FFFD in the text
    return True


def _plain(data: bytes) -> str:
    if is_binary(data):
        raise Binary()
    text = decode(data[:MAX_INPUT_BYTES])
    invalid = text.count("\ufffd")
    if invalid >= _INVALID_AT_LEAST and invalid > len(text) * _MOSTLY_INVALID:
        raise Binary()  # no NUL in its head, but not text: compressed streams, images
    return text


def _brief(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:200] if lines else type(exc).__name__


def is_extracted(rel: str) -> bool:
    """Whether a file's indexed lines are text extracted from it (PDF, notebook, Office
    documents, mail), not the file's own lines. HTML keeps its lines, so it is not."""
    fmt = format_of(rel)
    return fmt is not None and fmt.extracted
