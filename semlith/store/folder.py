"""What a store folder holds, and keeping it owner-only.

Only the store's own files are made private, and the folder itself (with a `.gitignore`
of `*`, so the store never shows in `git status`) only when it holds nothing else:
`--store DIR` may name a user's folder. A writable open tightens a store made before
stores were private.
"""

from __future__ import annotations

from pathlib import Path

from semlith.base.private import private_opener, tighten, tighten_tree
from semlith.store.catalog import CATALOG_NAME
from semlith.store.lock import LOCK_NAME

GITIGNORE = ".gitignore"
# The vector side's names (store/exact.py and vectors.py use them): here, so that
# knowing a store's files loads no numpy.
EXACT_NAME = "exact.f32"
SHARDS_DIR = "shards"
SPACES_DIR = "spaces"
STORE_FILES = frozenset({CATALOG_NAME, f"{CATALOG_NAME}-wal", f"{CATALOG_NAME}-shm",
                         f"{CATALOG_NAME}-journal", EXACT_NAME, f"{EXACT_NAME}.tmp",
                         LOCK_NAME, GITIGNORE, SHARDS_DIR, SPACES_DIR})


def make_private(folder: Path) -> None:
    """Owner-only files (a store made before stores were private is tightened), and
    the folder owner-only and ignored by git when it is the store's own."""
    names = {path.name for path in folder.iterdir()}
    for name in names & STORE_FILES - {SHARDS_DIR}:
        tighten(folder / name)
    tighten_tree(folder / SHARDS_DIR)
    if SPACES_DIR in names:
        tighten_tree(folder / SPACES_DIR, depth=2)
    if names <= STORE_FILES:
        tighten(folder)
        if GITIGNORE not in names:
            with open(folder / GITIGNORE, "w", opener=private_opener) as file:
                file.write("# semlith's store: never committed\n*\n")
