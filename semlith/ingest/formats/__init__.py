"""Reading the formats of `base/formats.py`'s table: Office, OpenDocument, EPUB, RTF and
mail into Markdown-like text (the documents), PDF, notebooks and HTML pages into text.

Readers are imported only when a file of theirs is read. `read_format` is called by
`extract.extract_text` (never directly by the indexer), so indexing and reading back
give the same text. `format_status` is what `semlith formats` prints.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass

from semlith.base.formats import BY_LANGUAGE, DOCUMENTS, FORMATS, Format, Kind
from semlith.base.languages import language_of

Reader = Callable[..., None]  # (data, out: Text, depth) -> None, writing into `out`


def format_of(rel: str) -> Format | None:
    """The format of a file by its name, or None."""
    language = language_of(rel)
    return BY_LANGUAGE.get(language.name) if language else None


def format_by_magic(data: bytes) -> Format | None:
    """The format whose first bytes `data` starts with (a file of no known format by its
    name is read as it), or None."""
    return next((f for f in FORMATS if f.magic and data.startswith(f.magic)), None)


def read_format(fmt: Format, data: bytes) -> str:
    """The text of `data` by `fmt`'s reader (`extract_text` cuts it and words failures).

    Raises:
        Unreadable: as `extract_document`, or the reader's own reason.
    """
    if fmt.kind is Kind.DOCUMENT:
        return extract_document(fmt.language, data)
    module, _, function = fmt.reader.partition(":")
    read: Callable[[bytes], str] = getattr(importlib.import_module(f"{__name__}.{module}"),
                                           function)
    return read(data)


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
    for fmt in DOCUMENTS:
        installed = not fmt.requires or importlib.util.find_spec(fmt.requires) is not None
        rows.append(FormatStatus(fmt, fmt.extensions, installed,
                                 "" if installed else _install_hint(fmt)))
    return rows


def size_cap(rel: str) -> int | None:
    """The largest size of a file of a format with its own cap (documents) the walk lets
    through; None for other files."""
    fmt = format_of(rel)
    return fmt.max_bytes if fmt else None


def size_limit(rel: str, max_bytes: int) -> int:
    """The largest file the walk lets through at `rel`: `max_bytes`, or its format's cap
    when larger."""
    return max(max_bytes, size_cap(rel) or 0)


def is_document(rel: str) -> bool:
    """Whether a file is a document (a format of Kind.DOCUMENT, by its name)."""
    fmt = format_of(rel)
    return fmt is not None and fmt.kind is Kind.DOCUMENT


def extract_document(language: str, data: bytes, depth: int = 0) -> str:
    """The text of a document of `language` (a document's name in FORMATS), bounded by
    the caps.

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
