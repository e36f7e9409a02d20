"""The typed API the CLI, the HTTP app and the MCP tools share: open, index, search.

Adapters parse their input, call these, and format the result; no logic lives in them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from semlith.embed.models import load_embedder
from semlith.embed.pool import EmbedderPool
from semlith.embed.text import DEFAULT_MODEL, Embedder
from semlith.errors import ModelError, StoreNotFound
from semlith.home import StoreEntry, register_store
from semlith.indexer import Indexer, IndexReport, Progress
from semlith.ingest.walk import Skipped
from semlith.search import Filters, Hit, Ranking, Searcher
from semlith.settings import Settings
from semlith.store import Store
from semlith.store.catalog import CATALOG_NAME, glob_escape
from semlith.store.locate import STORE_DIRNAME, find_store, require_store


def fastembed_factory(settings: Settings, threads: int | None = None
                      ) -> Callable[[str], Embedder]:
    def load(name: str) -> Embedder:
        return load_embedder(name, home=settings.home, models_dir=settings.models_dir,
                             threads=threads or settings.embed_threads)
    return load


@dataclass
class App:
    """Settings plus what a process shares: the embedder pool and the query workers."""

    settings: Settings
    embedder_factory: Callable[[str], Embedder] | None = None
    pool: EmbedderPool = field(init=False)
    executor: ThreadPoolExecutor | None = field(init=False)

    def __post_init__(self) -> None:
        if self.embedder_factory is not None:
            self.pool = EmbedderPool(self.embedder_factory, cache=self.settings.perf)
        else:
            self.pool = EmbedderPool(
                fastembed_factory(self.settings), cache=self.settings.perf,
                query_factory=fastembed_factory(self.settings, threads=1)
                if self.settings.perf else None)
        # Keyword lists run beside the query embedding (docs/performance.md, "query").
        self.executor = (ThreadPoolExecutor(2, thread_name_prefix="semlith-query")
                         if self.settings.perf else None)


def open_for_index(app: App, paths: Sequence[Path], store_dir: Path | None,
                   model: str | None) -> Store:
    """The store that indexes `paths` (created beside the first one if none exists)."""
    first = (paths[0] if paths else Path.cwd()).resolve()
    folder = store_dir.resolve() if store_dir else find_store(first)
    if folder is not None and (folder / CATALOG_NAME).exists():
        store = Store.open(folder, settings=app.settings, writable=True)
        if model and model != store.model:
            store.close()
            raise ModelError(f"store {str(folder)!r} was built with model {store.model!r}; "
                             f"a store keeps its model (asked for {model!r}); use a new --store")
        _register(app, store)
        return store
    if not first.is_dir():
        raise StoreNotFound(f"{str(first)!r} is not a folder; index a folder to create a store")
    root = first
    folder = folder or root / STORE_DIRNAME
    name = model or DEFAULT_MODEL
    dim = app.pool.get(name).dim  # a new store needs the model's dimension
    store = Store.create(folder, model=name, dim=dim, settings=app.settings, root=root)
    _register(app, store)
    return store


def _register(app: App, store: Store) -> None:
    """Record the store in SEMLITH_HOME so `semlith serve` finds it."""
    register_store(app.settings.home, StoreEntry(str(store.folder.resolve()),
                                                 str(store.root.resolve()), store.model,
                                                 store.name))


def run_index(app: App, store: Store, paths: Sequence[Path] = (), *,
              on_progress: Callable[[Progress], None] | None = None,
              on_skip: Callable[[Skipped], None] | None = None,
              time_budget: float | None = None) -> IndexReport:
    root = store.root
    scoped = [p for p in paths if p.resolve() != root.resolve()]
    indexer = Indexer(store, root, lambda: app.pool.get(store.model),
                      on_progress=on_progress, on_skip=on_skip)
    return indexer.run(scoped, time_budget=time_budget)


def store_dirs(app: App, given: Sequence[Path]) -> list[Path]:
    """--store values, else SEMLITH_STORE, else the store above the current folder."""
    if given:
        return [p.resolve() for p in given]
    if app.settings.stores:
        return [p.resolve() for p in app.settings.stores]
    return [require_store(Path.cwd())]


@contextmanager
def stores_open(app: App, dirs: Sequence[Path]) -> Iterator[list[tuple[str, Store]]]:
    """`open_stores` that closes them again: `with stores_open(app, dirs) as opened:`."""
    opened = open_stores(app, dirs)
    try:
        yield opened
    finally:
        for _, store in opened:
            store.close()


def open_stores(app: App, dirs: Sequence[Path]) -> list[tuple[str, Store]]:
    opened: list[tuple[str, Store]] = []
    names: dict[str, int] = {}
    for folder in dirs:
        store = Store.open(folder, settings=app.settings)
        label = store.name
        names[label] = names.get(label, 0) + 1
        opened.append((label if names[label] == 1 else f"{label}#{names[label]}", store))
    return opened


MAX_K = 10_000  # SQLite binds 64-bit integers; a larger k only wastes memory


def search(app: App, stores: Sequence[tuple[str, Store]], query: str, k: int = 10,
           filters: Filters | None = None, ranking: Ranking | None = None) -> list[Hit]:
    """The top `k` hits for `query` over `stores` (see `semlith.search`).

    Raises ValueError for an empty query or a bad k, NothingSelected when the filters
    select no indexed file in any store.
    """
    if not query.strip():
        raise ValueError("the query is empty")
    if not 1 <= k <= MAX_K:
        raise ValueError(f"k must be from 1 to {MAX_K}, got {k}")
    return Searcher(stores, app.pool, ranking, app.executor).search(query, k, filters)


def forget(store: Store, path: Path) -> int:
    """Remove a file or every file under a folder from the index; returns files removed."""
    try:
        rel = path.resolve().relative_to(store.root.resolve()).as_posix()
    except ValueError:
        raise ValueError(f"{str(path)!r} is outside the store's root "
                         f"{str(store.root)!r}") from None
    catalog = store.catalog
    with catalog.transaction() as db:
        rows = db.execute("SELECT path FROM files WHERE path = ? OR path GLOB ?",
                          (rel, glob_escape(rel.rstrip("/")) + "/*" if rel != "." else "*")
                          ).fetchall()
        removed = catalog.delete_files(db, [r[0] for r in rows])
    store.checkpoint()
    return removed
