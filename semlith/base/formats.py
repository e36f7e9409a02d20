"""The one table of the file formats semlith extracts text from.

A format is one row here plus its reader module in `semlith/ingest/formats/`. Every
other part reads the row: `languages.py` makes it a language (its extensions, `--lang`
and its aliases, whether it is cut at headings), the walk its size cap, `extract.py`
its reader, the reason a failure gives and the bytes that claim a file under any name,
a read whether its lines are extracted text or the file's own, the scanner whether it
is a document, and `semlith formats` what does the reading and how to install it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

# Office documents, books and mail are mostly images and fonts we never decompress; a
# 30 MB slide deck is common and its text is a few KB. The walk's 8 MiB cap for other
# files would skip them, so these formats may be this large (read once into memory).
MAX_DOCUMENT_BYTES = 64 << 20


class Kind(StrEnum):
    # Markdown-like text written into `ingest/formats/text.Text` under the caps of
    # `ingest/formats/limits.py`: read inside mail too, listed by `semlith formats`.
    DOCUMENT = "document"
    # A function from the bytes to the text (PDF pages, notebook cells, a page's text).
    TEXT = "text"


@dataclass(frozen=True, slots=True)
class Format:
    language: str  # its name as a language (languages.py, `--lang`, the catalog)
    extensions: tuple[str, ...]
    title: str  # "Word document", used in messages
    reader: str  # "module:function" under semlith.ingest.formats
    package: str  # what does the reading, for `semlith formats`
    kind: Kind = Kind.DOCUMENT
    requires: str = ""  # an import name that must be installed ("" = nothing beyond ours)
    extra: str = ""  # the pip extra that installs it ("" = the default install)
    # Files up to this size are read; None: the walk's cap for any file (8 MiB). RTF
    # keeps that cap: its pictures are inline hex that striprtf scans, not a zip member
    # skipped.
    max_bytes: int | None = MAX_DOCUMENT_BYTES
    # Cut at Markdown headings: the reader renders the document's structure as them.
    headings: bool = True
    # Its indexed lines are text extracted from it, not the file's own lines (a read
    # says so). HTML keeps every line where it is, so its lines are the file's.
    extracted: bool = True
    failure: str = ""  # how a failed read's reason starts; "" = "unreadable <title>"
    magic: bytes = b""  # a file of no known format starting with these is one of these
    aliases: tuple[str, ...] = ()  # other names `--lang` takes

    @property
    def unreadable(self) -> str:
        return self.failure or f"unreadable {self.title}"


_OURS = "semlith (zipfile + expat)"
# Macro-enabled Office files are the same XML with a macro part beside it, not read.
FORMATS: tuple[Format, ...] = (
    Format("html", (".html", ".htm", ".xhtml"), "HTML", "page:read_page",
           "Python's html.parser", Kind.TEXT, max_bytes=None, headings=False,
           extracted=False, aliases=("htm",)),
    Format("notebook", (".ipynb",), "Jupyter notebook", "notebook:read_notebook",
           "Python's json", Kind.TEXT, max_bytes=None, headings=False,
           failure="invalid notebook", aliases=("ipynb",)),
    # a PDF under another name (Illustrator's `.ai`) is read as a PDF
    Format("pdf", (".pdf",), "PDF", "pdf:read_pdf", "pypdf", Kind.TEXT, max_bytes=None,
           headings=False, failure="corrupt PDF", magic=b"%PDF-"),
    Format("docx", (".docx", ".docm"), "Word document", "docx:read_docx", _OURS,
           aliases=("word",)),
    Format("xlsx", (".xlsx", ".xlsm"), "Excel workbook", "xlsx:read_xlsx", _OURS,
           aliases=("excel",)),
    Format("pptx", (".pptx", ".pptm"), "PowerPoint deck", "pptx:read_pptx", _OURS,
           aliases=("powerpoint",)),
    Format("odt", (".odt",), "OpenDocument text", "odf:read_odt", _OURS),
    Format("ods", (".ods",), "OpenDocument spreadsheet", "odf:read_ods", _OURS),
    Format("odp", (".odp",), "OpenDocument presentation", "odf:read_odp", _OURS),
    Format("epub", (".epub",), "EPUB book", "epub:read_epub",
           "semlith (zipfile + expat + html.parser)"),
    # striprtf gives paragraphs, no headings
    Format("rtf", (".rtf",), "RTF document", "rtf:read_rtf", "striprtf", requires="striprtf",
           max_bytes=8 << 20, headings=False),
    Format("email", (".eml",), "mail message", "mail:read_eml", "Python's email",
           aliases=("eml", "mail")),
    Format("mbox", (".mbox", ".mbx"), "mailbox", "mail:read_mbox", "Python's email"),
)
BY_LANGUAGE = {f.language: f for f in FORMATS}
DOCUMENTS = tuple(f for f in FORMATS if f.kind is Kind.DOCUMENT)
