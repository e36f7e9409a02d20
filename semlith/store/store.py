"""`Store`: one store folder on disk — catalog, vector spaces, writer lock.

The catalog (SQL) knows which chunks exist and which vector space each belongs to; the
spaces (`semlith.store.vectors`: 4-bit shards and an exact sidecar each) hold their
vectors, and the store calls them only through the `VectorSpace` protocol. The `text`
space lives in the store folder itself (`shards/`, `exact.f32`: unchanged since before
spaces); any other, such as `image`, in `spaces/<name>/`. Opening reads no vectors. The
folder and its files are owner-only (store/folder.py). A writable open takes the writer
lock and recovers what the last writer left; a checkpoint commits a file's hash only
after its vectors are durable (the crash protocol, store/checkpoint.py).
"""

from __future__ import annotations

import functools
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from semlith.base.private import FOLDER_MODE, create_private_file, tighten
from semlith.base.settings import Settings
from semlith.errors import BackendError, ModelError, StoreCorrupt, StoreNotFound
from semlith.store.backends import backend_for
from semlith.store.catalog import CATALOG_NAME, Catalog
from semlith.store.checkpoint import checkpoint, recover
from semlith.store.corpus import Corpus, LocalCorpus
from semlith.store.folder import SPACES_DIR, make_private
from semlith.store.locate import store_exists
from semlith.store.lock import WriterLock
from semlith.store.query import paths_under
from semlith.store.rows import SpaceRecord

if TYPE_CHECKING:  # the vector modules load numpy and turbovec: only a store that
    import numpy as np  # searches or writes vectors imports them (issue #45)

    from semlith.store.graph import GraphStore
    from semlith.store.milvus.space import MilvusSpace
    from semlith.store.vectors import VectorSpace

TEXT = "text"


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
        # Every read of search, symbols and read goes through the corpus; a store whose
        # backend is another engine (issue #16: Milvus) keeps its text vectors, keyword
        # index and, for a mirror, its chunks there (store/backends.py).
        self.corpus: Corpus
        self._spaces: dict[str, VectorSpace] | None = None  # opened on first use
        self._spaces_lock = threading.Lock()
        self._backend = catalog.meta("backend")
        # A mirror (`semlith attach`) reads a repo another machine indexes: its catalog
        # holds only meta, its chunks are the engine's rows.
        self._mirror = catalog.meta("mirror") == "1"
        if self._backend:
            vectors, self.corpus = backend_for(self._backend).open(
                self, self._backend, mirror=self._mirror)
            self._spaces = {TEXT: vectors}
        else:
            self.corpus = LocalCorpus(self)
        self.recovered: dict[str, int] = {}
        self._root: Path | None = None
        self._name: str | None = None

    @functools.cached_property
    def graph(self) -> GraphStore:
        """The code graph's reads (store/graph.py; a mirror's edges are elsewhere), made
        on first use: a fresh CLI's grep does not import them (~8 ms, issue #45)."""
        from semlith.store.graph import GraphStore

        return GraphStore(self.catalog, has_edges=not self._mirror)

    # -- lifecycle -----------------------------------------------------------------------

    @property
    def root(self) -> Path:
        """The folder whose files this store indexes (paths are relative to it). A store
        beside its corpus records none: it is the folder holding the store, so a copied
        or moved project keeps working; one kept elsewhere (--store) records it."""
        if self._root is None:  # fixed at creation: read once (it is on the query path)
            self._root = Path(self.catalog.meta("root") or self.folder.parent)
        return self._root

    @property
    def name(self) -> str:
        if self._name is None:  # fixed at creation, read once (on the query path)
            self._name = self.catalog.meta("name") or self.root.name
        return self._name

    exists = staticmethod(store_exists)  # whether a folder holds a (finished) store

    def rename(self, name: str) -> None:
        """Give the store another name (another store on the machine has this one)."""
        self._require_writer()
        with self.catalog.transaction():
            if self.catalog.meta("first_name") is None:
                self.catalog.set_meta("first_name", self.name)
            self.catalog.set_meta("name", name)
        self._name = name

    @classmethod
    def create_mirror(cls, folder: Path, *, backend: str, settings: Settings) -> Store:
        """A mirror of the repo `backend` names (`?repo=` is required): a store folder
        whose catalog holds only meta, read from Milvus (writable, locked: it is new).
        The model and dimension are the collection's."""
        from semlith.store.milvus.target import MilvusTarget

        target = MilvusTarget.parse(backend)
        if not target.repo or not target.collection:
            raise BackendError("attach needs the collection and the repo: "
                               "milvus://HOST:PORT/COLLECTION?repo=NAME")
        model, dim = backend_for(backend).describe(str(target))

        def describe(catalog: Catalog) -> None:
            with catalog.transaction():
                for key, value in (("backend", str(target)), ("mirror", 1), ("model", model),
                                   ("dim", dim), ("name", target.repo), ("root", str(folder)),
                                   ("created", time.time())):
                    catalog.set_meta(key, value)
                catalog.add_space(catalog.db, SpaceRecord(TEXT, model, dim))
        return cls._make(folder, settings, "semlith attach", describe)

    @classmethod
    def _make(cls, folder: Path, settings: Settings, command: str | None,
              describe: Callable[[Catalog], None]) -> Store:
        """The store at `folder`, made writable and locked; `describe` writes the meta of
        a new one (a catalog without a model is new: its creation did not finish)."""
        folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        lock = WriterLock(folder, command).acquire()
        try:
            # SQLite gives the -wal and -shm files the mode of the database file.
            create_private_file(folder / CATALOG_NAME)
            catalog = Catalog.open(folder / CATALOG_NAME, create=True)
            if catalog.meta("model") is None:
                describe(catalog)
            store = cls(folder, catalog, settings, lock)
            store._recover()
            return store
        except BaseException:
            lock.release()
            raise

    @classmethod
    def create(cls, folder: Path, *, model: str, dim: int, settings: Settings,
               command: str | None = None, root: Path | None = None,
               backend: str | None = None) -> Store:
        """Create an empty store (writable, locked). The model is fixed for its lifetime,
        and so is `backend` (a Milvus target, `semlith.store.milvus.space`; None: local).

        A new Milvus-backed store owns its repo's rows: it deletes what a store of the
        same repo left in the collection."""
        engine = None if backend is None else backend_for(backend)
        if dim <= 0 or dim % 8:
            raise ValueError(f"vector dimension must be a positive multiple of 8, got {dim}")
        home = (root or folder.parent).resolve()

        def describe(catalog: Catalog) -> None:
            named = None
            if engine is not None and backend is not None:  # before the meta: a store
                named = engine.named(backend, model=model, repo=home.name)  # never sees
                engine.claim(named, model=model, dim=dim)  # rows older than itself
            with catalog.transaction():
                if named is not None:
                    catalog.set_meta("backend", named)
                catalog.set_meta("model", model)
                catalog.set_meta("dim", dim)
                catalog.set_meta("created", time.time())
                if home != folder.resolve().parent:
                    catalog.set_meta("root", str(home))
                catalog.add_space(catalog.db, SpaceRecord(TEXT, model, dim))
        store = cls._make(folder, settings, command, describe)
        if _in_milvus(store.vectors) and not store.catalog.has_chunks():
            store.vectors.first_load = True  # until the first run ends (`end_first_load`)
        return store

    def end_first_load(self) -> None:
        """After the run that filled a new store: every later write may meet a row it
        wrote, so it upserts."""
        if _in_milvus(self.vectors):
            self.vectors.first_load = False

    def check_backend(self, backend: str | None) -> None:
        """A store keeps the backend it was made with: asking for another is an error."""
        if backend is None:
            return
        engine = backend_for(backend)
        # the name the store had when its rows were named (a rename does not move them)
        repo = self.catalog.meta("first_name") or self.name
        wanted = engine.named(backend, model=self.model, repo=repo)
        have = self._backend
        if not have or engine.identity(wanted) != engine.identity(have):
            raise BackendError(f"store {str(self.folder)!r} keeps its vectors in "
                               f"{have or 'its own folder'}, not {wanted}; use a new --store")

    @classmethod
    def open(cls, folder: Path, *, settings: Settings, writable: bool = False,
             command: str | None = None) -> Store:
        """Open an existing store; `writable` takes the writer lock (or raises StoreLocked)."""
        if not (folder / CATALOG_NAME).exists():
            raise StoreNotFound(f"no semlith store at {str(folder)!r}")
        try:
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
        except sqlite3.DatabaseError as exc:  # not SQLite at all: a traceback before
            raise StoreCorrupt(f"{str(folder / CATALOG_NAME)!r} is not a semlith catalog "
                               f"({exc})") from None

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
    def spaces(self) -> dict[str, VectorSpace]:
        """The vector spaces by name ("text", "image"...), opened on first use: a grep,
        a read or a file listing opens none, and so imports no numpy (issue #45)."""
        with self._spaces_lock:
            if self._spaces is None:
                from semlith.store.vectors import local_spaces

                self._spaces = local_spaces(self.folder, self.dim,
                                            self.catalog.spaces().values(), self.settings)
            return self._spaces

    @property
    def vectors(self) -> VectorSpace:  # the text space: the chunks' vectors
        return self.spaces[TEXT]

    @property
    def writable(self) -> bool:
        return self.lock is not None and self.lock.held

    def close(self) -> None:
        if self.writable:
            for space in self.spaces.values():
                space.durable()
            with self.catalog.transaction():
                self.catalog.set_meta("writer_clean", 1)
        self.catalog.close()
        for space in (self._spaces or {}).values():  # none to open just to close
            space.close()
        if self.lock is not None:
            self.lock.release()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _recover(self) -> None:
        """Make the store consistent after whatever the previous writer left behind."""
        make_private(self.folder)
        self.recovered = recover(self.catalog, self.spaces)

    # -- writing -------------------------------------------------------------------------

    def _require_writer(self) -> None:
        if not self.writable:
            raise PermissionError(f"store {str(self.folder)!r} is open read-only")

    def add_vectors(self, ids: Sequence[int] | np.ndarray, vectors: np.ndarray,
                    space: str = TEXT) -> None:
        """Store vectors for chunk ids (increasing) in `space`; durable in the space's log
        at once."""
        import numpy as np

        self._require_writer()
        self.spaces[space].add(np.asarray(ids, dtype=np.uint64), vectors)

    def space(self, name: str) -> SpaceRecord | None:
        """What the store records about a space (None: it has none of that name)."""
        return self.catalog.spaces().get(name)

    def ensure_space(self, name: str, *, model: str, dim: int,
                     weights_sha256: str) -> VectorSpace:
        """The space `name`, made on first use; ModelError when it was made by other
        weights (its vectors would not compare with the new ones)."""
        self._require_writer()
        record = self.space(name)
        if record is not None:
            if (record.weights_sha256, record.dim) != (weights_sha256, dim):
                raise ModelError(
                    f"the {name} space of {str(self.folder)!r} was built with {record.model}"
                    f" (weights sha256 {record.weights_sha256[:12]}), not the loaded"
                    f" {model} (sha256 {weights_sha256[:12]}); use those weights again or"
                    " index into a new store")
            return self.spaces[name]
        if dim <= 0 or dim % 8:
            raise ValueError(f"vector dimension must be a positive multiple of 8, got {dim}")
        record = SpaceRecord(name, model, dim, weights_sha256)
        (self.folder / SPACES_DIR / name).mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        tighten(self.folder / SPACES_DIR)
        with self.catalog.transaction() as db:
            self.catalog.add_space(db, record)
        from semlith.store.vectors import local_space

        self.spaces[name] = local_space(self.folder, record, self.settings)
        return self.spaces[name]

    def checkpoint(self, done: Iterable[tuple[int, str]] = ()) -> int:
        """Make vectors durable, drop trashed ones, then commit `done` (file id, hash);
        the new generation. Hashes last: a process killed before leaves those files
        pending, redone by the next run."""
        self._require_writer()
        return checkpoint(self.catalog, self.spaces, done)

    def forget(self, rel: str) -> int:
        """Remove the file `rel`, or every file inside the folder `rel` ("" or ".": all),
        from the index (not from disk); returns how many files it removed."""
        self._require_writer()
        with self.catalog.transaction() as db:
            removed = self.catalog.delete_files(db, paths_under(self.catalog, rel))
        self.checkpoint()
        return removed

    # -- searching -----------------------------------------------------------------------

    def dense_search(self, query: np.ndarray, k: int, *, allowlist: np.ndarray | None = None,
                     rescore: int | None = None, live: bool = True,
                     space: str = TEXT) -> list[tuple[int, float]]:
        """Top-`k` (chunk id, cosine score) by vector: 4-bit scan, exact rescoring of the
        head (`rescore` None: `vectors.RESCORE_HEAD`). `allowlist` restricts the scan to
        those ids. With `live`, ids of deleted chunks not yet trashed are dropped (search
        looks the chunks up anyway: False). `SEMLITH_PERF=off`: an exact scan (slow, the
        reference answer)."""
        from semlith.store.vectors import RESCORE_HEAD, is_exhaustive

        rescore = RESCORE_HEAD if rescore is None else rescore
        vectors = self.spaces[space]
        check = live or is_exhaustive(vectors)
        # Liveness drops ids: rank the whole rescored head, then cut to k.
        ranked = vectors.search(query, max(k, rescore) if check else k, allowlist=allowlist,
                                rescore=rescore)
        if not check and is_exhaustive(vectors):
            # A shard failed to load during this very search: the exact scan that answered
            # cannot tell that shard's removed ids (issue #26), so rank more and check.
            check = True
            ranked = vectors.search(query, max(k, rescore), allowlist=allowlist,
                                    rescore=rescore)
        return self._live(ranked, check)[:k]

    def _live(self, ranked: list[tuple[int, float]], check: bool) -> list[tuple[int, float]]:
        """Drop ids whose chunk no longer exists (a writer may not have trashed them yet)."""
        if not ranked or not check:
            return ranked
        marks = ",".join("?" * len(ranked))
        alive = {r[0] for r in self.catalog.db.execute(
            f"SELECT id FROM chunks WHERE id IN ({marks})", [i for i, _ in ranked])}
        return [(i, s) for i, s in ranked if i in alive]

    # -- reporting -----------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """What `semlith stats` shows of this store (its corpus counts it), and its backend."""
        return {**self.corpus.stats(), "backend": self._backend or "local"}


def _in_milvus(vectors: VectorSpace) -> TypeGuard[MilvusSpace]:
    """Whether the vectors are a Milvus collection's (a local store loads no Milvus)."""
    from semlith.store.vectors import LocalSpace

    if isinstance(vectors, LocalSpace):
        return False
    from semlith.store.milvus.space import MilvusSpace

    return isinstance(vectors, MilvusSpace)
