"""The catalog's rows as values: a file, a skip record, a chunk to write, a vector space."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FileRecord:
    id: int
    path: str
    hash: str
    size: int
    mtime_ns: int
    indexed_at: float
    ext: str
    lang: str
    chunking: str = ""  # fingerprint of how it was cut (see definitions.chunking_fingerprint)
    redacted: int = 0  # credential-shaped strings replaced by a marker (ingest/secrets.py)
    rules: str = ""  # the secret rules it was read with (secrets.rules_fingerprint)


@dataclass(frozen=True, slots=True)
class SkipRecord:
    """A path the walk or the extractor passed over, and why."""

    path: str
    reason: str
    detail: str = ""
    size: int = -1  # with mtime_ns: lets the next run skip it again without reading it
    mtime_ns: int = -1


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk as the writer inserts it."""

    start_line: int
    end_line: int
    text: str
    kind: str = ""
    symbol: str = ""
    idents: str = ""
    space: str = "text"  # the vector space holding its vector (`Catalog.spaces`)


@dataclass(frozen=True, slots=True)
class SpaceRecord:
    """A vector space of a store: its model, vector width and weights hash."""

    name: str
    model: str
    dim: int
    weights_sha256: str = ""
