"""Every file name semlith knows, and how it is read: pinned extension by extension.

Written before the format table moved to one home (issue #44), and kept: a format is
one row of that table plus its reader module, and this says what each row means to the
walk (size cap), the extractor (which reader, by its failure on bytes that are no such
file), reading back (extracted lines or the file's own), the scanner (a document) and
the chunker (headings).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from semlith.base.languages import LANGUAGES, language_of, resolve_language
from semlith.ingest.chunk import strategy_of
from semlith.ingest.extract import Binary, extract_text, is_extracted, is_plain
from semlith.ingest.formats import format_status, is_document, size_cap
from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.reading import limit_for

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
MIB = 1 << 20
# extension -> (language, what `\0not a document` reads as, extracted, size cap, headings)
DOCUMENTS = {
    ".html": ("html", "text", False, None, False),
    ".htm": ("html", "text", False, None, False),
    ".xhtml": ("html", "text", False, None, False),
    ".ipynb": ("notebook", "invalid notebook JSON", True, None, False),
    ".pdf": ("pdf", "corrupt PDF", True, None, False),
    ".docx": ("docx", "Word document", True, 64 * MIB, True),
    ".docm": ("docx", "Word document", True, 64 * MIB, True),
    ".xlsx": ("xlsx", "Excel workbook", True, 64 * MIB, True),
    ".xlsm": ("xlsx", "Excel workbook", True, 64 * MIB, True),
    ".pptx": ("pptx", "PowerPoint deck", True, 64 * MIB, True),
    ".pptm": ("pptx", "PowerPoint deck", True, 64 * MIB, True),
    ".odt": ("odt", "OpenDocument text", True, 64 * MIB, True),
    ".ods": ("ods", "OpenDocument spreadsheet", True, 64 * MIB, True),
    ".odp": ("odp", "OpenDocument presentation", True, 64 * MIB, True),
    ".epub": ("epub", "EPUB book", True, 64 * MIB, True),
    ".rtf": ("rtf", "RTF document", True, 8 * MIB, False),
    ".eml": ("email", "text", True, 64 * MIB, True),
    ".mbox": ("mbox", "mailbox", True, 64 * MIB, True),
    ".mbx": ("mbox", "mailbox", True, 64 * MIB, True),
}
NAMES = sorted({*(e for lang in LANGUAGES for e in lang.extensions),
                *(n for lang in LANGUAGES for n in lang.filenames), ".xyz", ".ai", "none"})


def read_as(rel: str, data: bytes) -> str:
    """"text", "binary", or the start of the reason the reader gave up."""
    try:
        extract_text(rel, data)
    except Binary:
        return "binary"
    except Unreadable as exc:
        return str(exc).split(":")[0]
    return "text"


@pytest.mark.parametrize("name", NAMES)
def test_every_file_name_reads_as_pinned(name: str) -> None:
    rel = f"docs/file{name}" if name.startswith(".") else f"docs/{name}"
    language = language_of(rel)
    lang, garbage, extracted, cap, headings = DOCUMENTS.get(
        name, (language.name if language else None, "binary", False, None,
               language is not None and language.name == "markdown"))
    assert (language.name if language else None) == lang
    assert read_as(rel, b"\x00not a document") == garbage
    assert is_extracted(rel) is extracted
    assert size_cap(rel) == cap and is_document(rel) is (cap is not None)
    assert limit_for(rel, 8 * MIB) == (cap or 8 * MIB) and limit_for(rel, 100 * MIB) == 100 * MIB
    assert is_plain(rel, b"plain") is (name not in DOCUMENTS)
    assert (strategy_of(language) == "headings" if language else False) is headings


def test_a_pdf_under_any_other_name_is_read_as_a_pdf() -> None:
    pdf = (FIXTURES / "extract" / "hello.pdf").read_bytes()
    for rel in ("logo.ai", "noext", "notes.txt", "x.py"):
        assert not is_plain(rel, pdf)
        assert extract_text(rel, pdf) == extract_text("hello.pdf", pdf)
    assert "--- page 1 ---" in extract_text("logo.ai", pdf)
    assert read_as("bad.ai", b"%PDF-1.4 broken") == "corrupt PDF"
    # A name a document reader claims is read by that reader, whatever the bytes.
    assert read_as("bad.docx", b"%PDF-1.4 broken") == "Word document"


def test_semlith_formats_lists_the_documents_in_order() -> None:
    assert [(r.format.language, r.extensions) for r in format_status()] == [
        ("docx", (".docx", ".docm")), ("xlsx", (".xlsx", ".xlsm")),
        ("pptx", (".pptx", ".pptm")), ("odt", (".odt",)), ("ods", (".ods",)),
        ("odp", (".odp",)), ("epub", (".epub",)), ("rtf", (".rtf",)),
        ("email", (".eml",)), ("mbox", (".mbox", ".mbx"))]


def test_the_languages_keep_their_order_and_aliases() -> None:
    names = [lang.name for lang in LANGUAGES]
    assert names[names.index("text") + 1] == "html"
    assert names[names.index("sql") + 1 : names.index("sql") + 3] == ["notebook", "pdf"]
    assert names[-10:] == ["docx", "xlsx", "pptx", "odt", "ods", "odp", "epub", "rtf",
                           "email", "mbox"]
    for alias, name in [("word", "docx"), ("excel", "xlsx"), ("powerpoint", "pptx"),
                        ("eml", "email"), ("mail", "email"), ("ipynb", "notebook"),
                        ("htm", "html"), ("py", "python")]:
        assert resolve_language(alias).name == name
