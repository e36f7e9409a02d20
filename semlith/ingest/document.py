"""A file's text as semlith indexes and reads it back: one function for both."""

from __future__ import annotations

from semlith.ingest.extract import extract_text


def document_text(rel: str, data: bytes) -> str:
    """The text of a file as indexed: what search excerpts and `read` show."""
    return extract_text(rel, data)
