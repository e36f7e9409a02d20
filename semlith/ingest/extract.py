"""A file's bytes -> its text, choosing the extractor by extension before looking at bytes.

PDFs give the text of their pages, notebooks their cells (with text outputs), HTML its
text with every newline kept (so line N of the text is line N of the file); Office,
OpenDocument, EPUB, RTF and mail documents give Markdown-like text from their readers
in `formats/` (docs/formats.md); anything else is text unless it looks binary. Every
extractor is bounded, and any failure inside one becomes `Unreadable` with a short
reason: a bad file costs one skipped file, never the index run.
"""

from __future__ import annotations

import codecs
import io
import json
import logging
from collections.abc import Callable
from html import unescape
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any

from semlith.base.languages import language_of
from semlith.ingest.formats import FORMATS  # the table only; readers load when used
from semlith.ingest.formats.limits import MAX_TEXT_CHARS, Unreadable

if TYPE_CHECKING:
    from pypdf import PdfReader

MAX_PDF_PAGES = 2_000
MAX_OUTPUT_CHARS = 1_000  # text outputs kept per notebook cell
BINARY_SNIFF_BYTES = 8 << 10
# A file that decodes to this share of invalid UTF-8 or more is binary whatever its head
# says (text in a legacy 8-bit encoding has an accented letter here and there: a few %).
# A few bytes of invalid UTF-8 on purpose (a JSON test suite's `["\xff"]`) stay text.
_MOSTLY_INVALID = 0.25
_INVALID_AT_LEAST = 256
_PDF_MAGIC = b"%PDF-"  # a PDF under another name is read as a PDF
# UTF-8 can take 4 bytes a character; no more input than this can reach the output.
_MAX_INPUT_BYTES = 4 * MAX_TEXT_CHARS
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16 LE, whose BOM it starts with
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
    (codecs.BOM_UTF8, "utf-8-sig"),
)
_BOM_PREFIXES = tuple(bom for bom, _ in _BOMS)


class Binary(Unreadable):
    """A file that looks binary (a NUL byte near the start)."""

    def __init__(self) -> None:
        super().__init__("binary")


def is_binary(data: bytes) -> bool:
    """Whether `data` looks binary: a NUL byte in the first 8 KiB, unless it starts with a
    UTF-16 or UTF-32 byte order mark (such text is full of NULs)."""
    return b"\x00" in data[:BINARY_SNIFF_BYTES] and _bom_encoding(data) is None


def extract_text(rel: str, data: bytes) -> str:
    """The text of a file, at most MAX_TEXT_CHARS long, with "\\n" line ends.

    Args:
        rel: the file's path; only its name and extension are used.
        data: the file's bytes.

    Raises:
        Binary: a file of no known text-bearing type that looks binary.
        Unreadable: a PDF, notebook or page that cannot be read (corrupt, encrypted...).
    """
    language = language_of(rel)
    extractor, label = _EXTRACTORS.get(language.name if language else "", (_plain, "text"))
    if extractor is _plain and data.startswith(_PDF_MAGIC):  # Illustrator's `.ai` is one
        extractor, label = _EXTRACTORS["pdf"]
    try:
        text = extractor(data)
    except Unreadable:
        raise
    except Exception as exc:  # malformed input may fail anywhere inside a parser
        raise Unreadable(f"{label}: {_brief(exc)}") from exc
    return text[:MAX_TEXT_CHARS]


def is_plain(rel: str, data: bytes) -> bool:
    """Whether `extract_text(rel, data)` only decodes `data` (no document format, no
    markup): the same bytes give the same text in any version."""
    language = language_of(rel)
    return not (language is not None and language.name in _EXTRACTORS) and \
        not data.startswith(_PDF_MAGIC)


def decodes_as_is(data: bytes) -> bool:
    """Whether a plain file's text (`is_plain`) is `data` itself, for bytes `extract_text`
    takes as text (an indexed file's): UTF-8 with no byte order mark, no carriage return
    and no need to be cut. grep then searches the bytes as they are."""
    if len(data) > MAX_TEXT_CHARS or b"\r" in data or data.startswith(_BOM_PREFIXES):
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
    text = _decode(data[:_MAX_INPUT_BYTES])
    invalid = text.count("\ufffd")
    if invalid >= _INVALID_AT_LEAST and invalid > len(text) * _MOSTLY_INVALID:
        raise Binary()  # no NUL in its head, but not text: compressed streams, images
    return text


def _decode(data: bytes) -> str:
    """UTF-8 (or UTF-16/32 with a BOM) with bad bytes replaced, line ends made "\\n"."""
    return _newlines(data.decode(_bom_encoding(data) or "utf-8", errors="replace"))


def _newlines(text: str) -> str:
    """CRLF and lone CR become LF, so line numbers match what editors show."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _bom_encoding(data: bytes) -> str | None:
    return next((encoding for bom, encoding in _BOMS if data.startswith(bom)), None)


def _brief(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:200] if lines else type(exc).__name__


# -- PDF ---------------------------------------------------------------------------------


def _pdf(data: bytes) -> str:
    from pypdf import PdfReader  # imported when needed: it costs ~0.1 s to import

    # pypdf logs every repair it makes to a malformed file; the user sees our one-line
    # reason instead, so only its critical messages get through.
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted and not _decrypts(reader):
        raise Unreadable("encrypted PDF")
    pages: list[str] = []
    size = 0
    for number, page in enumerate(reader.pages, start=1):
        if number > MAX_PDF_PAGES or size > MAX_TEXT_CHARS:
            break
        text = _newlines(page.extract_text())
        pages.append(f"--- page {number} ---\n{text}")
        size += len(pages[-1])
    return "\n".join(pages)


def _decrypts(reader: PdfReader) -> bool:
    """Whether the PDF opens with the empty password (many "encrypted" PDFs do)."""
    from pypdf.errors import DependencyError, PyPdfError

    try:
        return bool(reader.decrypt(""))
    except (DependencyError, PyPdfError, NotImplementedError):  # no crypto backend, or
        return False  # an encryption scheme pypdf does not know


# -- Jupyter notebooks -------------------------------------------------------------------


def _notebook(data: bytes) -> str:
    try:  # parsed whole (embedded images make notebooks big); what we keep is bounded
        notebook = json.loads(_decode(data))
    except json.JSONDecodeError as exc:
        raise Unreadable(f"invalid notebook JSON: {exc}") from None
    if not isinstance(notebook, dict):
        raise Unreadable("invalid notebook: the top level is not an object")
    cells = notebook.get("cells")
    if cells is None:  # nbformat 3 kept cells in worksheets
        cells = [c for sheet in notebook.get("worksheets") or [] for c in sheet.get("cells", [])]
    return "\n\n".join(_cell(cell) for cell in cells if isinstance(cell, dict))


def _cell(cell: dict[str, Any]) -> str:
    kind = cell.get("cell_type", "code")
    source = _newlines(_joined(cell.get("source", cell.get("input", "")))).rstrip("\n")
    return "\n".join([f"# %% [{kind}]", source, *_outputs(cell.get("outputs"))])


def _outputs(outputs: Any) -> list[str]:
    """A cell's text outputs as "# output: " lines, at most MAX_OUTPUT_CHARS of them."""
    if not isinstance(outputs, list):
        return []
    text = _newlines("\n".join(_output_text(output) for output in outputs))
    kept = "\n".join(line for line in text.split("\n") if line.strip())
    if len(kept) > MAX_OUTPUT_CHARS:
        kept = kept[:MAX_OUTPUT_CHARS] + " ..."
    return [f"# output: {line}" for line in kept.split("\n")] if kept else []


def _output_text(output: Any) -> str:
    """The text of one output; images and other binary data are dropped."""
    if not isinstance(output, dict):
        return ""
    kind = output.get("output_type")
    if kind == "stream":
        return _joined(output.get("text"))
    if kind == "error":  # the traceback is mostly ANSI colour codes
        return f"{output.get('ename', '')}: {output.get('evalue', '')}"
    data = output.get("data")
    return _joined(data.get("text/plain")) if isinstance(data, dict) else ""


def _joined(value: Any) -> str:
    """Notebook text fields are a string or a list of strings."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part for part in value if isinstance(part, str))
    return ""


# -- HTML --------------------------------------------------------------------------------


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


def _html(data: bytes) -> str:
    source = _decode(data[:_MAX_INPUT_BYTES])[:MAX_TEXT_CHARS]
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


# -- documents ---------------------------------------------------------------------------


def _document(language: str) -> Callable[[bytes], str]:
    def read(data: bytes) -> str:
        from semlith.ingest.formats import extract_document  # its readers import this module

        return extract_document(language, data)

    return read


_EXTRACTORS: dict[str, tuple[Callable[[bytes], str], str]] = {
    "pdf": (_pdf, "corrupt PDF"),
    "notebook": (_notebook, "invalid notebook"),
    "html": (_html, "unreadable HTML"),
    **{f.language: (_document(f.language), f"unreadable {f.title}") for f in FORMATS},
}


def is_extracted(rel: str) -> bool:
    """Whether a file's indexed lines are text extracted from it (PDF, notebook, Office
    documents, mail), not the file's own lines. HTML keeps its lines, so it is not."""
    language = language_of(rel)
    return language is not None and language.name in _EXTRACTORS and language.name != "html"
