"""Documents: Office, OpenDocument, EPUB, RTF and mail, read into Markdown-like text.

`FORMATS` is the one table of document formats: which language (in `languages.py`)
each is, which module reads it and which installed package that needs. Readers are
imported only when a file of theirs is read. `extract_document` is called by
`extract.extract_text` (never directly by the indexer), so indexing and reading back
give the same text. `format_status` is what `semlith formats` prints.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass

from semlith.base.languages import BY_NAME, language_of
from semlith.ingest.formats.limits import MAX_DOCUMENT_BYTES

Reader = Callable[..., None]  # (data, out: Text, depth) -> None, writing into `out`


@dataclass(frozen=True, slots=True)
class Format:
    language: str  # a name in languages.py
    title: str  # "Word document", used in messages
    reader: str  # "module:function" under semlith.ingest.formats
    package: str  # what does the reading, for `semlith formats`
    requires: str = ""  # an import name that must be installed ("" = nothing beyond ours)
    extra: str = ""  # the pip extra that installs it ("" = the default install)
    # Files up to this size are read (the walk's cap for other files is 8 MiB). RTF keeps
    # that cap: its pictures are inline hex that striprtf scans, not a zip member skipped.
    max_bytes: int = MAX_DOCUMENT_BYTES


_OURS = "semlith (zipfile + expat)"
FORMATS: tuple[Format, ...] = (
    Format("docx", "Word document", "docx:read_docx", _OURS),
    Format("xlsx", "Excel workbook", "xlsx:read_xlsx", _OURS),
    Format("pptx", "PowerPoint deck", "pptx:read_pptx", _OURS),
    Format("odt", "OpenDocument text", "odf:read_odt", _OURS),
    Format("ods", "OpenDocument spreadsheet", "odf:read_ods", _OURS),
    Format("odp", "OpenDocument presentation", "odf:read_odp", _OURS),
    Format("epub", "EPUB book", "epub:read_epub", "semlith (zipfile + expat + html.parser)"),
    Format("rtf", "RTF document", "rtf:read_rtf", "striprtf", "striprtf", max_bytes=8 << 20),
    Format("email", "mail message", "mail:read_eml", "Python's email"),
    Format("mbox", "mailbox", "mail:read_mbox", "Python's email"),
)
BY_LANGUAGE = {f.language: f for f in FORMATS}


@dataclass(frozen=True, slots=True)
class FormatStatus:
    """One row of `semlith formats`."""

    format: Format
    extensions: tuple[str, ...]
    installed: bool
    note: str  # how to install the reader when it is missing


def format_status() -> list[FormatStatus]:
    """Every document format, its extensions and whether its reader can be imported."""
    rows = []
    for fmt in FORMATS:
        installed = not fmt.requires or importlib.util.find_spec(fmt.requires) is not None
        rows.append(FormatStatus(fmt, BY_NAME[fmt.language].extensions, installed,
                                 "" if installed else _install_hint(fmt)))
    return rows


def size_cap(rel: str) -> int | None:
    """The largest size of a document file the walk lets through; None for other files."""
    language = language_of(rel)
    fmt = BY_LANGUAGE.get(language.name) if language else None
    return fmt.max_bytes if fmt else None


def is_document(rel: str) -> bool:
    """Whether a file is of a format in FORMATS (by its name)."""
    return size_cap(rel) is not None


def extract_document(language: str, data: bytes, depth: int = 0) -> str:
    """The text of a document of `language` (a name in FORMATS), bounded by the caps.

    Raises:
        Unreadable: the reader is not installed, or the file is corrupt, encrypted or
            hostile beyond what partial text can answer (see limits.py).
    """
    from semlith.ingest.formats.limits import MAX_TEXT_CHARS, Unreadable
    from semlith.ingest.formats.text import Text, TextFull
    from semlith.ingest.formats.xmlstream import XmlLimit

    fmt = BY_LANGUAGE[language]
    module, _, function = fmt.reader.partition(":")
    try:
        reader: Reader = getattr(importlib.import_module(f"{__name__}.{module}"), function)
    except ImportError as exc:
        raise Unreadable(f"{fmt.title}: reader not installed ({fmt.requires or exc.name}); "
                         f"{_install_hint(fmt)}") from None
    out = Text()
    try:
        reader(data, out, depth)
    except TextFull:
        out.truncated(f"the text passed {MAX_TEXT_CHARS:,} characters")
    except XmlLimit as exc:
        out.truncated(str(exc))
    return out.text()


def _install_hint(fmt: Format) -> str:
    return f"pip install {f'semlith[{fmt.extra}]'!r}" if fmt.extra else \
        f"pip install {fmt.requires}"
