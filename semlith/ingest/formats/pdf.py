"""PDF: the text of its pages through pypdf, each under a `--- page N ---` line."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING

from semlith.ingest.formats.decoding import newlines
from semlith.ingest.formats.limits import MAX_TEXT_CHARS, Unreadable

if TYPE_CHECKING:
    from pypdf import PdfReader

MAX_PDF_PAGES = 2_000


def read_pdf(data: bytes) -> str:
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
        text = newlines(page.extract_text())
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
