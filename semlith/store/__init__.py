"""One store on disk: catalog, vector shards, exact sidecar, writer lock, its `Corpus`,
the backends beside the local one (`milvus/`) and the machine-wide vector cache: the only
package that speaks SQL."""

from semlith.store.rows import ChunkRow, FileRecord
from semlith.store.store import Store
from semlith.types import ChunkRecord

__all__ = ["ChunkRecord", "ChunkRow", "FileRecord", "Store"]
