"""One store on disk: catalog, vector shards, exact sidecar, writer lock."""

from semlith.store.rows import ChunkRow, FileRecord
from semlith.store.store import Store
from semlith.types import ChunkRecord

__all__ = ["ChunkRecord", "ChunkRow", "FileRecord", "Store"]
