"""A file's bytes -> the text semlith may store, embed and return: the one gate.

Indexing and reading back (`semlith_read`) both call `read_document`, so what an agent
reads is exactly what was indexed: secret files withheld, credential-shaped strings
redacted (`secrets.py`), everything else as `extract.py` gives it.
"""

from __future__ import annotations

from dataclasses import dataclass

from semlith.ingest.extract import extract_text
from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.secrets import redact, secret_content


class Withheld(Unreadable):
    """A file withheld whole as a secret; str(exc) says what it looks like."""


@dataclass(frozen=True, slots=True)
class Document:
    text: str
    redacted: int  # credential-shaped strings replaced by a marker


def read_document(rel: str, data: bytes, *, opted_in: bool = False) -> Document:
    """The servable text of the file at `rel` (its name picks the extractor).

    Args:
        rel: the file's path relative to its root.
        data: the file's bytes.
        opted_in: a `.semlithignore` negation names the file (`walk.is_opted_in`): it is
            not withheld for its content shape. Strings in it are still redacted.

    Raises:
        Withheld: the bytes are a private key, a keystore or a credentials file.
        Binary, Unreadable: as `extract_text`.
    """
    if not opted_in:
        why = secret_content(rel, data)
        if why is not None:
            raise Withheld(why)
    redacted = redact(extract_text(rel, data))
    return Document(redacted.text, redacted.count)


def document_text(rel: str, data: bytes, *, opted_in: bool = False) -> str:
    """`read_document(...).text`: the text to store, embed or return."""
    return read_document(rel, data, opted_in=opted_in).text
