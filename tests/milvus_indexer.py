"""An index run into a Milvus-backed store that a test kills -9 (test_milvus.py).

usage: python -m tests.milvus_indexer ROOT BACKEND STALL_AFTER
Indexes ROOT with a deterministic embedder; prints "embedded N" after each embedding
call and, once N reaches STALL_AFTER (0: never), prints "stalled" and sleeps until it
is killed: vectors of uncommitted files are then in Milvus and the catalog's hashes are
not. Prints the summary line at the end of a run that was not stalled.
"""

from __future__ import annotations

import sys
import time

from semlith.base.settings import Settings
from semlith.local import LocalLibrary
from tests.conftest import HashEmbedder


def main() -> None:
    root, backend, stall_after = sys.argv[1], sys.argv[2], int(sys.argv[3])
    embedded = 0

    class Stalling(HashEmbedder):
        def embed_documents(self, texts: list[str]):  # type: ignore[no-untyped-def]
            nonlocal embedded
            vectors = super().embed_documents(texts)
            embedded += len(texts)
            print(f"embedded {embedded}", flush=True)
            if stall_after and embedded >= stall_after:
                print("stalled", flush=True)
                time.sleep(3600)
            return vectors

    library = LocalLibrary(Settings.load(), embedder_factory=lambda name: Stalling(name))
    report = library.index([root], model="test-hash", backend=backend)
    library.close()
    print(report.summary(), flush=True)


if __name__ == "__main__":
    main()
