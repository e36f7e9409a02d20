"""`Store`: one store folder on disk — catalog, vector shards, exact sidecar, writer lock.

Opening reads no vectors. The folder and its files are owner-only (`semlith.private`): a
writable open tightens a store made before that, and adds `.gitignore` (`*`) so the store
never shows in `git status`. A writable open takes the writer lock and, if the previous
writer did not close cleanly, recovers: torn temp files and a torn sidecar tail are
removed, trashed vector ids are removed from the shards, and unreadable shards are
rebuilt from the exact sidecar.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from semlith.errors import StoreNotFound
from semlith.private import FOLDER_MODE, create_private_file, private_opener, tighten, tighten_tree
from semlith.settings import Settings
from semlith.store.catalog import CATALOG_NAME, FORMAT_VERSION, Catalog
from semlith.store.exact import EXACT_NAME, ExactSidecar
from semlith.store.lock import LOCK_NAME, WriterLock
from semlith.store.shards import SHARD_SPAN, ShardSet

SHARDS_DIR = "shards"
GITIGNORE = ".gitignore"
# What a store folder holds. Only these are made private, and the folder itself (and its
# .gitignore) only when it holds nothing else: `--store DIR` may name a user's folder.
STORE_FILES = frozenset({CATALOG_NAME, f"{CATALOG_NAME}-wal", f"{CATALOG_NAME}-shm",
                         f"{CATALOG_NAME}-journal", EXACT_NAME, f"{EXACT_NAME}.tmp",
                         LOCK_NAME, GITIGNORE, SHARDS_DIR})
RESCORE_HEAD = 100
# Compact exact.f32 once dead records pass this share of the file (and this many records).
COMPACT_RATIO = 0.25
COMPACT_MIN = 4096


class Store:
    """A store folder. Build with `Store.create` or `Store.open`; close when done."""

    def __init__(self, folder: Path, catalog: Catalog, settings: Settings,
                 lock: WriterLock | None) -> None:
        self.folder = folder
        self.catalog = catalog
        self.settings = settings
        self.lock = lock
        dim = int(catalog.meta("dim", "0") or 0)
        self.dim = dim
        self.model = catalog.meta("model", "") or ""
        self.exact = ExactSidecar(folder / EXACT_NAME, dim)
        self.shards = ShardSet(folder / SHARDS_DIR, dim, settings.index_memory_mb << 20)
        self.recovered: dict[str, int] = {}
        self._root: Path | None = None

    # -- lifecycle -----------------------------------------------------------------------

    @property
    def root(self) -> Path:
        """The folder whose files this store indexes (paths in it are relative to this).

        A store beside its corpus records no root: it is the folder holding the store,
        so a copied or moved project keeps working. A store kept elsewhere (--store)
        records its root's absolute path.
        """
        if self._root is None:  # fixed at creation: read once (it is on the query path)
            self._root = Path(self.catalog.meta("root") or self.folder.parent)
        return self._root

    @property
    def name(self) -> str:
        return self.root.name

    @classmethod
    def create(cls, folder: Path, *, model: str, dim: int, settings: Settings,
               command: str | None = None, root: Path | None = None) -> Store:
        """Create an empty store (writable, locked). The model is fixed for its lifetime."""
        if dim <= 0 or dim % 8:
            raise ValueError(f"vector dimension must be a positive multiple of 8, got {dim}")
        folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        lock = WriterLock(folder, command).acquire()
        try:
            # SQLite gives the -wal and -shm files the mode of the database file.
            create_private_file(folder / CATALOG_NAME)
            catalog = Catalog.open(folder / CATALOG_NAME, create=True)
            if catalog.meta("model") is None:
                root = (root or folder.parent).resolve()
                with catalog.transaction():
                    catalog.set_meta("model", model)
                    catalog.set_meta("dim", dim)
                    catalog.set_meta("created", time.time())
                    if root != folder.resolve().parent:
                        catalog.set_meta("root", str(root))
            store = cls(folder, catalog, settings, lock)
            store._recover()
            return store
        except BaseException:
            lock.release()
            raise

    @classmethod
    def open(cls, folder: Path, *, settings: Settings, writable: bool = False,
             command: str | None = None) -> Store:
        """Open an existing store; `writable` takes the writer lock (or raises StoreLocked)."""
        if not (folder / CATALOG_NAME).exists():
            raise StoreNotFound(f"no semlith store at {str(folder)!r}")
        if not writable:
            cls._upgrade(folder, settings)
        lock = WriterLock(folder, command).acquire() if writable else None
        try:
            catalog = Catalog.open(folder / CATALOG_NAME, readonly=not writable)
            store = cls(folder, catalog, settings, lock)
            if lock is not None:
                store._recover()
            return store
        except BaseException:
            if lock is not None:
                lock.release()
            raise

    @classmethod
    def _upgrade(cls, folder: Path, settings: Settings) -> None:
        """A reader of a store that needs a migration applies it once as a writer (the
        migration is the writer's job; a writer that holds the store has done it)."""
        probe = Catalog(folder / CATALOG_NAME, readonly=True)
        try:
            pending = probe.pending_migrations()
        finally:
            probe.close()
        if pending:
            cls.open(folder, settings=settings, writable=True,
                     command="semlith (store upgrade)").close()

    @property
    def writable(self) -> bool:
        return self.lock is not None and self.lock.held

    def close(self) -> None:
        if self.writable:
            self.shards.flush()
            with self.catalog.transaction():
                self.catalog.set_meta("writer_clean", 1)
        self.catalog.close()
        self.exact.close()
        if self.lock is not None:
            self.lock.release()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _recover(self) -> None:
        """Make the store consistent after whatever the previous writer left behind."""
        self._make_private()
        clean = self.catalog.meta("writer_clean", "1") == "1"
        with self.catalog.transaction():
            self.catalog.set_meta("writer_clean", 0)
        self.recovered = {
            "temp_files": len(self.shards.remove_temp_files()),
            "torn_bytes": self.exact.repair(),
        }
        tmp = self.exact.path.with_name(self.exact.path.name + ".tmp")
        if tmp.exists():
            tmp.unlink()
            self.recovered["temp_files"] += 1
        self.recovered["trashed"] = self._empty_trash()
        if not clean:
            self.recovered["rebuilt_shards"] = self._verify_shards()

    def _make_private(self) -> None:
        """Owner-only files (a store made before stores were private is tightened), and
        the folder owner-only and ignored by git when it is the store's own."""
        names = {path.name for path in self.folder.iterdir()}
        for name in names & STORE_FILES - {SHARDS_DIR}:
            tighten(self.folder / name)
        tighten_tree(self.folder / SHARDS_DIR)
        if names <= STORE_FILES:
            tighten(self.folder)
            if GITIGNORE not in names:
                with open(self.folder / GITIGNORE, "w", opener=private_opener) as file:
                    file.write("# semlith's store: never committed\n*\n")

    def _verify_shards(self) -> int:
        """Rebuild shards that fail to load or miss a committed vector; returns how many.

        A committed chunk whose vector is in neither place (the disk lost it) sends its
        file back to pending, so the next index run embeds it again.
        """
        live = self.catalog.vector_ids()
        wanted = {int(f) for f in np.unique((live // SHARD_SPAN) * SHARD_SPAN)}
        listing = self.shards.listing()
        rebuilt = 0
        for first in sorted(wanted | set(listing)):
            expect = live[(live >= first) & (live < first + SHARD_SPAN)]
            if first in listing and self.shards.holds_all(first, expect):
                continue
            self.shards.rebuild(first, self.exact.scan, expect)
            rebuilt += 1
        if rebuilt:
            self.shards.flush()
            found, _ = self.exact.fetch(live)
            lost = [int(i) for i in live[~found]]
            if lost:
                with self.catalog.transaction() as db:
                    self.catalog.reset_files_of_chunks(db, lost)
        return rebuilt

    # -- writing -------------------------------------------------------------------------

    def _require_writer(self) -> None:
        if not self.writable:
            raise PermissionError(f"store {str(self.folder)!r} is open read-only")

    def add_vectors(self, ids: Sequence[int] | np.ndarray, vectors: np.ndarray) -> None:
        """Store vectors for chunk ids (increasing); durable in the sidecar at once."""
        self._require_writer()
        ids = np.asarray(ids, dtype=np.uint64)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.shape != (len(ids), self.dim):
            raise ValueError(f"expected vectors of shape ({len(ids)}, {self.dim}), "
                             f"got {vectors.shape}")
        self.exact.append(ids, vectors)
        self.shards.add(ids, vectors)

    def checkpoint(self, done: Iterable[tuple[int, str]] = ()) -> int:
        """Make vectors durable, drop trashed ones, then commit `done` (file id, hash).

        Returns the new store generation. The hashes are committed last: a process killed
        anywhere before leaves those files pending, to be redone by the next run.
        """
        self._require_writer()
        self.shards.flush()
        self._empty_trash()
        with self.catalog.transaction() as db:
            self.catalog.commit_hashes(db, done)
            generation = self.catalog.bump_generation(db)
        self._maybe_compact()
        return generation

    def _empty_trash(self) -> int:
        trash = self.catalog.trash()
        if len(trash):
            self.shards.remove(trash)
            self.shards.flush()
            with self.catalog.transaction() as db:
                self.catalog.clear_trash(db, trash)
        return len(trash)

    def _maybe_compact(self) -> None:
        records = self.exact.count()
        if records < COMPACT_MIN:
            return
        live = self.catalog.db.execute("SELECT COUNT(*) FROM chunks WHERE id <= ?",
                                       (self.exact.last_id(),)).fetchone()[0]
        dead = records - live
        if dead >= COMPACT_MIN and dead >= COMPACT_RATIO * records:
            ids = (r[0] for r in self.catalog.db.execute("SELECT id FROM chunks ORDER BY id"))
            self.exact.compact(ids)

    # -- searching -----------------------------------------------------------------------

    def dense_search(self, query: np.ndarray, k: int, *, allowlist: np.ndarray | None = None,
                     rescore: int = RESCORE_HEAD, live: bool = True) -> list[tuple[int, float]]:
        """Top-`k` (chunk id, cosine score) by vector: 4-bit scan, exact rescoring of the head.

        `allowlist` restricts the scan to those chunk ids. With `live`, ids whose chunk was
        deleted (and not yet trashed by the writer) are dropped; a caller that looks the
        chunks up anyway (search does) passes False and saves that query. With
        `SEMLITH_PERF=off` this is an exact brute-force scan of the sidecar instead (slow,
        the reference answer).
        """
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise ValueError(f"query has dimension {query.shape[0]}, store has {self.dim}")
        want = max(k, rescore)
        if not self.settings.perf:
            return self._live(self._exact_scan(query, want + 32, allowlist), live)[:k]
        try:
            approx_scores, ids = self.shards.search(query, want, allowlist)
        except (ValueError, OSError) as exc:  # a shard corrupt on disk: answer exactly instead
            self.shards.note_unreadable(str(exc))
            return self._live(self._exact_scan(query, want + 32, allowlist), live)[:k]
        found, vectors = self.exact.fetch(ids)
        scores = approx_scores.astype(np.float32)
        if found.any():
            scores[found] = vectors @ query
        order = np.argsort(-scores, kind="stable")
        return self._live([(int(ids[i]), float(scores[i])) for i in order], live)[:k]

    def _live(self, ranked: list[tuple[int, float]], check: bool) -> list[tuple[int, float]]:
        """Drop ids whose chunk no longer exists (a writer may not have trashed them yet)."""
        if not ranked or not check:
            return ranked
        marks = ",".join("?" * len(ranked))
        alive = {r[0] for r in self.catalog.db.execute(
            f"SELECT id FROM chunks WHERE id IN ({marks})", [i for i, _ in ranked])}
        return [(i, s) for i, s in ranked if i in alive]

    def _exact_scan(self, query: np.ndarray, k: int,
                    allowlist: np.ndarray | None) -> list[tuple[int, float]]:
        best_ids = np.empty(0, np.uint64)
        best_scores = np.empty(0, np.float32)
        allow = None if allowlist is None else np.asarray(allowlist, np.uint64)
        for ids, vectors in self.exact.scan():
            scores = vectors @ query
            if allow is not None:
                keep = np.isin(ids, allow)
                ids, scores = ids[keep], scores[keep]
            best_ids = np.concatenate([best_ids, ids])
            best_scores = np.concatenate([best_scores, scores])
            if len(best_ids) > k:
                top = np.argpartition(-best_scores, k)[:k]
                best_ids, best_scores = best_ids[top], best_scores[top]
        order = np.argsort(-best_scores, kind="stable")
        return [(int(best_ids[i]), float(best_scores[i])) for i in order]

    # -- reporting -----------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        shard_stats = asdict(self.shards.stats())
        return {
            "name": self.name,
            "folder": str(self.folder),
            "root": str(self.root),
            "format_version": FORMAT_VERSION,
            "model": self.model,
            "dim": self.dim,
            "generation": self.catalog.generation(),
            **self.catalog.counts(),
            "withheld": self.catalog.withheld(),
            "exact_records": self.exact.count(),
            "chunked_by": self.catalog.chunkers(),
            "shards": shard_stats,
            "recovered": dict(self.recovered),
        }
