"""One store on disk: catalog, vector shards, exact sidecar, writer lock."""

from semlith.store.catalog import ChunkRecord, ChunkRow, FileRecord
from semlith.store.store import Store

__all__ = ["ChunkRecord", "ChunkRow", "FileRecord", "Store"]
