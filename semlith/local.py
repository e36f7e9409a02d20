"""The library in this process: `LocalLibrary`, over stores opened per call or held.

Where the stores come from is a `StoreSource`: `OnDemand` opens them for the call and
closes them after (the CLI without a daemon), the daemon's `Fleet` holds them writable
and watched (semlith/server/fleet.py). Everything else — scopes, searching, reading,
indexing — is the same code for both.

A library serves either the person who runs semlith (`agent=False`: any folder can be
indexed, any store folder named) or an agent (`agent=True`): then only registered
stores are addressed, nothing is created, and every path must resolve inside a served
root (no `..`, no symlink leading out).
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from semlith.backends import attach_mirror, mirror_passage, refuse_mirror, same_backend
from semlith.embed.cached import with_vector_cache
from semlith.embed.models import load_embedder
from semlith.embed.pool import EmbedderPool
from semlith.embed.text import DEFAULT_MODEL, Embedder
from semlith.errors import (
    BadTarget,
    DaemonNotRunning,
    ModelError,
    SemlithError,
    StoreNotFound,
    UnknownStore,
)
from semlith.folders import check_new_root, check_request_path
from semlith.home import register_store, registered_stores
from semlith.indexer import Indexer, content_hash
from semlith.ingest.walk import Skipped
from semlith.library import MAX_K, OnEvent, OnProgress, OnSkip
from semlith.locators import Target, parse_target
from semlith.scope import (
    Known,
    Resolved,
    inside,
    label_stores,
    resolve,
    roots_holding,
)
from semlith.search import Searcher
from semlith.settings import Settings
from semlith.store import Store
from semlith.store import query as q
from semlith.store.locate import STORE_DIRNAME, find_store
from semlith.symbols import find_symbols
from semlith.types import (
    Answer,
    Definition,
    FileEntry,
    Filters,
    IndexReport,
    Passage,
    Scope,
    SkipEntry,
    Status,
    StoreEntry,
    StoreStats,
    Watched,
)
from semlith.weights import Weights

if TYPE_CHECKING:
    from semlith.embed.clip import ClipEmbedder

class Opened(list[tuple[str, Store]]):
    """The (label, store) pairs a call reads, and the stores of its scope that could not
    be opened: `failed` holds (label, why), and the call answers from the rest."""

    def __init__(self) -> None:
        super().__init__()
        self.failed: list[tuple[str, str]] = []


def open_or_note(opened: Opened, known: Known, of: int, open: Callable[[], Store]
                 ) -> Store | None:
    """`open()` the store `known`; when it fails and it is one of several (`of`), note
    why in `opened.failed` and return None instead of failing the whole call."""
    try:
        return open()
    except (SemlithError, OSError, sqlite3.Error) as exc:
        if of <= 1:
            raise
        opened.failed.append((known.name, str(exc)))
        return None


class Engine:
    """What a process shares: settings, one embedder pool, the query worker threads."""

    def __init__(self, settings: Settings,
                 embedder_factory: Callable[[str], Embedder] | None = None) -> None:
        self.settings = settings
        if embedder_factory is not None:
            self.pool = EmbedderPool(embedder_factory, cache=settings.perf)
        else:
            self.pool = EmbedderPool(
                with_vector_cache(_fastembed(settings), settings), cache=settings.perf,
                query_factory=_fastembed(settings, threads=1) if settings.perf else None)
        # Keyword lists run beside the query embedding (docs/performance.md, "query").
        self.executor = (ThreadPoolExecutor(2, thread_name_prefix="semlith-query")
                         if settings.perf else None)
        self._image: ClipEmbedder | None = None
        self._image_lock = threading.Lock()

    def image_model(self) -> ClipEmbedder:
        """The image model, loaded once on first use (only a store with images asks).

        Raises ModelError when the extra or the weights are missing."""
        with self._image_lock:
            if self._image is None:
                from semlith.embed.clip import ClipEmbedder

                self._image = ClipEmbedder.load(self.settings.models_dir,
                                                 self.settings.clip_weights)
            return self._image

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True)


def _fastembed(settings: Settings, threads: int | None = None) -> Callable[[str], Embedder]:
    """Loads a model by name: a recipe (built offline from its package) or fastembed's."""
    def load(name: str) -> Embedder:
        return load_embedder(name, home=settings.home, models_dir=settings.models_dir,
                             threads=threads or settings.embed_threads)
    return load


class StoreSource(Protocol):
    """Where a library's stores come from."""

    served_by: int  # the daemon's pid when it holds the stores, else 0

    def known(self) -> list[Known]:
        """Every store that may be addressed, labelled."""
        ...

    def reading(self, chosen: Sequence[Known]) -> contextlib.AbstractContextManager[Opened]:
        ...

    def writing(self, folder: Path, create: Callable[[], Store] | None
                ) -> contextlib.AbstractContextManager[tuple[str, Store]]:
        """The store at `folder` for writing (created by `create` when it does not exist)."""
        ...

    def ready(self) -> None:
        """Wait until the stores' models can embed queries (or raise why they cannot)."""
        ...

    def describe(self, name: str) -> tuple[bool, dict[str, object] | None]:
        """(an index run is in progress, the watcher's state) of a store."""
        ...

    def status(self) -> Status:
        """The daemon holding the stores; DaemonNotRunning when none does."""
        ...


class OnDemand:
    """Stores opened for one call and closed after it (the CLI when no daemon runs)."""

    served_by = 0

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def known(self) -> list[Known]:
        entries = registered_stores(self.engine.settings.home)
        return label_stores([(e.name, Path(e.folder), Path(e.root) if e.root else None)
                             for e in entries if (Path(e.folder) / "store.db").is_file()])

    @contextlib.contextmanager
    def reading(self, chosen: Sequence[Known]) -> Iterator[Opened]:
        stores: list[Store] = []
        result = Opened()
        try:
            for known in chosen:
                store = open_or_note(result, known, len(chosen), functools.partial(
                    Store.open, known.folder, settings=self.engine.settings))
                if store is not None:
                    stores.append(store)
            labels = label_stores([(s.name, s.folder, s.root) for s in stores])
            result.extend((k.name, s) for k, s in zip(labels, stores, strict=True))
            yield result
        finally:
            for store in stores:
                store.close()

    @contextlib.contextmanager
    def writing(self, folder: Path, create: Callable[[], Store] | None
                ) -> Iterator[tuple[str, Store]]:
        if (folder / "store.db").is_file() or create is None:
            store = Store.open(folder, settings=self.engine.settings, writable=True)
        else:
            store = create()
        try:
            register(self.engine.settings.home, store)
            yield store.name, store
        finally:
            store.close()

    def ready(self) -> None:
        pass

    def describe(self, name: str) -> tuple[bool, dict[str, object] | None]:
        return False, None

    def status(self) -> Status:
        raise DaemonNotRunning("no semlith daemon is running; start one with `semlith serve`")


def register(home: Path, store: Store) -> None:
    """Record the store in SEMLITH_HOME so `semlith serve` (and agents) find it."""
    from semlith.home import StoreEntry as Entry

    register_store(home, Entry(str(store.folder.resolve()), str(store.root.resolve()),
                               store.model, store.name))


class LocalLibrary:
    """`semlith.library.Library` in this process."""

    def __init__(self, settings: Settings, *,
                 embedder_factory: Callable[[str], Embedder] | None = None,
                 engine: Engine | None = None, source: StoreSource | None = None,
                 agent: bool = False, weights: Weights | None = None) -> None:
        self.settings = settings
        self.engine = engine or Engine(settings, embedder_factory)
        self.source: StoreSource = source or OnDemand(self.engine)
        self.agent = agent
        self.weights = weights or settings.ranking
        self._owns_engine = engine is None

    def close(self) -> None:
        if self._owns_engine:
            self.engine.close()

    # -- choosing stores ----------------------------------------------------------------

    def _resolve(self, scope: Scope, *, fallback_all: bool = False) -> Resolved:
        known = self.source.known()
        return resolve(scope, known, registered_only=self.agent,
                       fallback_all=fallback_all or self.agent)

    @contextlib.contextmanager
    def _reading(self, scope: Scope) -> Iterator[tuple[Opened, str]]:
        resolved = self._resolve(scope)
        with self.source.reading(resolved.stores) as opened:
            yield opened, resolved.note

    # -- reading ------------------------------------------------------------------------

    def search(self, query: str, *, k: int = 10, filters: Filters = Filters(),
               scope: Scope = Scope(), image: str | None = None) -> Answer:
        if not query.strip() and image is None:
            raise ValueError("the query is empty")
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k must be from 1 to {MAX_K}, got {k}")
        vector = None if image is None else self._image_vector(image)
        with self._reading(scope) as (opened, note):
            if opened.failed and not opened:
                raise SemlithError("no store could be searched: " + "; ".join(
                    f"{label}: {why}" for label, why in opened.failed))
            self.source.ready()
            searcher = Searcher(opened, self.engine.pool, self.weights, self.engine.executor,
                                images=self.engine.image_model)
            hits = searcher.search(query, k, filters, image=vector)
        failed = [*opened.failed, *searcher.failed]
        return Answer(tuple(hits), tuple(name for name, _ in opened), note,
                      tuple(f"{label}: {why}" for label, why in failed))

    def _image_vector(self, image: str) -> np.ndarray:
        """The image model's vector of an image file: for an agent, only a file inside
        an indexed root; for a person, any file they can read."""
        from semlith.ingest.formats.limits import Unreadable
        from semlith.ingest.images import read_image

        path = Path(image).expanduser()
        if self.agent:
            self._holder_of(path.resolve(), self.source.known())
        try:
            picture = read_image(path.read_bytes())
        except OSError as exc:
            raise BadTarget(f"cannot read {image!r}: {exc.strerror or exc}") from None
        except Unreadable as exc:
            raise BadTarget(f"{image!r}: {exc}") from None
        vector: np.ndarray = self.engine.image_model().embed_images([picture.image])[0]
        return vector

    def symbol(self, name: str, *, scope: Scope = Scope(), limit: int = 50
               ) -> list[Definition]:
        with self._reading(scope) as (opened, _):
            return find_symbols(opened, name, limit)

    def read(self, target: str, *, scope: Scope = Scope(), max_lines: int = 400,
             include_image: bool = False) -> Passage:
        known = self.source.known()
        parsed = parse_target(target, frozenset(k.name for k in known))
        if parsed.store:
            scope = Scope((parsed.store,))
        elif parsed.absolute:
            holder = self._holder_of(Path(parsed.path), known)
            scope, parsed = Scope((holder.name,)), Target(
                holder.name, _relative(Path(parsed.path), holder), parsed.start, parsed.end)
        with self._reading(scope) as (opened, _):
            for label, store in opened:
                if store.mirror and store.remote is not None:
                    records = store.remote.file_records(_posix(parsed.path))
                    if records:
                        return mirror_passage(label, parsed, records, max_lines)
                elif store.catalog.file(_posix(parsed.path)) is not None:
                    return _passage(label, store, parsed, max_lines, include_image)
            if parsed.start is None and not parsed.absolute:
                found = find_symbols(opened, target, limit=1)
                if found:
                    hit = found[0]
                    store = dict(opened)[hit.store]
                    passage = _passage(hit.store, store, Target(
                        hit.store, hit.path, hit.start_line, hit.end_line), max_lines)
                    return _with_symbol(passage, hit.qualname or hit.name)
        raise BadTarget(f"{parsed.path!r} is neither an indexed file nor a symbol; "
                        "semlith_files lists files, semlith_search finds code")

    def _holder_of(self, path: Path, known: list[Known]) -> Known:
        holding = roots_holding(path, known)
        if not holding:
            raise BadTarget(f"{str(path)!r} is not inside an indexed root; the roots are: "
                            + ", ".join(f"{k.name}: {k.root}" for k in known if k.root))
        return holding[0]

    def files(self, *, scope: Scope = Scope()) -> list[FileEntry]:
        with self._reading(scope) as (opened, _):
            return [FileEntry(label, f.path, f.size, f.lang,
                              "indexed" if f.hash else "pending")
                    for label, store in opened for f in store.catalog.files()]

    def skipped(self, *, scope: Scope = Scope()) -> list[SkipEntry]:
        with self._reading(scope) as (opened, _):
            return [SkipEntry(label, r.path, r.reason, r.detail)
                    for label, store in opened for r in store.catalog.skipped().values()]

    def stats(self, *, scope: Scope = Scope()) -> list[StoreStats]:
        with self._reading(scope) as (opened, _):
            out = []
            for label, store in opened:
                indexing, watch = self.source.describe(label)
                info = store.stats()
                out.append(StoreStats(**{**info, "name": label}, indexing=indexing,
                                      watch=watch, served_by=self.source.served_by))
            return out

    def stores(self) -> list[StoreEntry]:
        served = {k.folder.resolve() for k in self.source.known()} \
            if self.source.served_by else set()
        return [StoreEntry(e.name, e.folder, e.root, e.model,
                           (Path(e.folder) / "store.db").is_file(),
                           Path(e.folder).resolve() in served)
                for e in registered_stores(self.settings.home)]

    def status(self) -> Status:
        return self.source.status()

    # -- writing ------------------------------------------------------------------------

    def index(self, paths: Sequence[str] = (), *, store: str | None = None,
              model: str | None = None, backend: str | None = None,
              time_budget: float | None = None, on_progress: OnProgress | None = None,
              on_skip: OnSkip | None = None, allow_system: bool = False) -> IndexReport:
        folder, root, scoped = self._index_target(paths, store)
        create = None if self.agent else self._creator(folder, root, model, backend,
                                                       allow_system)
        with self.source.writing(folder, create) as (label, opened):
            if model and model != opened.model:
                raise ModelError(f"store {str(folder)!r} was built with model "
                                 f"{opened.model!r}; a store keeps its model (asked for "
                                 f"{model!r}); use a new --store")
            same_backend(opened, backend)
            refuse_mirror(opened)
            skip = None if on_skip is None else (
                lambda s: on_skip(s.rel, str(s.reason), s.detail))
            report = self._run(opened, scoped, time_budget, on_progress, skip)
            report.store, report.created = label, create is not None and create.called
            report.by_daemon = self.source.served_by
            return report

    def _run(self, store: Store, paths: Sequence[Path], time_budget: float | None,
             on_progress: OnProgress | None,
             on_skip: Callable[[Skipped], None] | None) -> IndexReport:
        root = store.root
        scoped = [p for p in paths if p.resolve() != root.resolve()]
        indexer = Indexer(store, root, lambda: self.engine.pool.get(store.model),
                          on_progress=on_progress, on_skip=on_skip)
        try:
            return indexer.run(scoped, time_budget=time_budget)
        finally:
            store.end_first_load()

    def _index_target(self, raw: Sequence[str], selector: str | None
                      ) -> tuple[Path, Path, list[Path]]:
        """(store folder, root for a new store, paths resolved) of an index request.

        A person's paths are absolute without `..` (the CLI resolves what was typed; the
        daemon's own folder means nothing to the caller): anything else is refused."""
        known = self.source.known()
        if self.agent:
            return self._agent_target([Path(p) for p in raw], selector, known)
        paths = [check_request_path(p) for p in raw]
        first = (paths[0] if paths else Path.cwd()).resolve()
        resolved = [p.resolve() for p in paths]
        if selector:
            try:
                (chosen,) = resolve(Scope((selector,)), known, registered_only=False,
                                    fallback_all=False).stores[:1]
                return chosen.folder, first, resolved
            except (UnknownStore, ValueError):
                if Path(selector).name in {"", "."} or not _pathlike(selector):
                    raise
                return Path(selector).expanduser().resolve(), first, resolved  # a new store
        above = find_store(first) if first.exists() else None
        if above is not None:
            return above, first, resolved
        holding = roots_holding(first, known)
        if holding:
            return holding[0].folder, first, resolved
        return first / STORE_DIRNAME, first, resolved

    def _agent_target(self, paths: list[Path], selector: str | None, known: list[Known]
                      ) -> tuple[Path, Path, list[Path]]:
        """An agent indexes only inside a served root: paths are relative to it."""
        chosen = list(resolve(Scope((selector,)) if selector else Scope(("*",)), known,
                              registered_only=True, fallback_all=False).stores)
        for store in chosen:
            if store.root is None:
                continue
            root = store.root.resolve()
            resolved = [(p if p.is_absolute() else root / p).resolve() for p in paths]
            if all(inside(p, root) for p in resolved) and (paths or len(chosen) == 1):
                return store.folder, root, resolved
        roots = ", ".join(f"{k.name}: {k.root}" for k in chosen)
        if not paths:
            raise UnknownStore(f"name the store; the stores are: {roots}")
        raise BadTarget(f"{', '.join(map(str, paths))} is not inside a served root ({roots})")

    def _creator(self, folder: Path, root: Path, model: str | None,
                 backend: str | None, allow_system: bool = False) -> _Create:
        def create() -> Store:
            if not root.is_dir():
                raise StoreNotFound(f"{str(root)!r} is not a folder; index a folder to "
                                    "create a store")
            check_new_root(root, allow_system=allow_system)
            name = model or DEFAULT_MODEL
            dim = self.engine.pool.get(name).dim  # a new store needs the model's dimension
            return Store.create(folder, model=name, dim=dim, settings=self.settings,
                                root=root, backend=backend)
        return _Create(create)

    def watch(self, paths: Sequence[str] = (), *, store: str | None = None,
              debounce: float = 0.5, on_event: OnEvent | None = None,
              stop: threading.Event | None = None) -> Watched:
        from semlith.watch import StoreWatcher

        folder, root, scoped = self._index_target(paths, store)
        create = None if self.agent else self._creator(folder, root, None, None)
        say = on_event or (lambda line: None)
        if self.source.served_by:  # the daemon watches every store it holds
            with self.source.writing(folder, create) as (label, opened):
                refuse_mirror(opened)
                return Watched(label, str(opened.root), self.source.served_by)
        with self.source.writing(folder, create) as (label, opened):
            refuse_mirror(opened)

            def batch(rels: list[str] | None) -> IndexReport:
                targets = [opened.root / r for r in rels] if rels is not None else scoped
                return self._run(opened, targets, None, None, None)

            watcher = StoreWatcher(opened.root, opened.folder, batch, debounce=debounce)
            watcher.on_batch = lambda report: say(report.summary())
            stop = stop or threading.Event()
            try:
                watcher.start(catch_up=True)
                say(f"watching {opened.root} (Ctrl-C stops)")
                while not stop.wait(1.0):
                    if watcher.state.last_error:
                        say(f"error: {watcher.state.last_error}")
                        watcher.state.last_error = None
            finally:
                watcher.stop()
            return Watched(label, str(opened.root), 0, watcher.state.batches)

    def attach(self, backend: str) -> StoreEntry:
        return attach_mirror(self.settings, backend)

    def forget(self, path: str, *, store: str | None = None) -> int:
        folder, _, (resolved,) = self._index_target([path], store)
        with self.source.writing(folder, None) as (_, opened):
            refuse_mirror(opened)
            try:
                rel = resolved.relative_to(opened.root.resolve()).as_posix()
            except ValueError:
                raise BadTarget(f"{path!r} is outside the store's root "
                                f"{str(opened.root)!r}") from None
            catalog = opened.catalog
            with catalog.transaction() as db:
                removed = catalog.delete_files(db, q.paths_under(catalog, rel))
            opened.checkpoint()
            return removed


class _Create:
    """A store factory that remembers whether it was used."""

    def __init__(self, func: Callable[[], Store]) -> None:
        self.func = func
        self.called = False

    def __call__(self) -> Store:
        self.called = True
        return self.func()


def _passage(label: str, store: Store, target: Target, max_lines: int,
             include_image: bool = False) -> Passage:
    """The lines of an indexed file as indexed, read now and checked to stay in the root."""
    from semlith.ingest.document import Withheld, document_text
    from semlith.ingest.extract import is_extracted
    from semlith.ingest.formats.limits import Unreadable
    from semlith.ingest.images import is_image
    from semlith.ingest.reading import limit_for, read_file
    from semlith.ingest.walk import is_opted_in

    rel = _posix(target.path)
    record = store.catalog.file(rel)
    if record is None:
        raise BadTarget(f"{target.path!r} is not an indexed file of store {label!r}; "
                        "semlith_files lists them")
    path = _inside_root(store.root, rel)
    try:  # the type and size checked again now, as the walk checked them
        data = read_file(path, limit_for(rel))
    except OSError as exc:
        raise BadTarget(f"{target.path!r} cannot be read now ({exc.strerror}); "
                        "it may have been deleted or replaced") from None
    if is_image(rel):
        return _image_passage(label, rel, data, include_image,
                              changed=record.hash not in ("", content_hash(data)))
    try:  # what was indexed, as it was indexed: secrets withheld or redacted
        text = document_text(rel, data, opted_in=is_opted_in(store.root, rel,
                                                             exclude=[store.folder]))
    except Withheld as exc:
        raise BadTarget(f"{target.path!r} is withheld as a secret ({exc}); semlith does not "
                        "serve it") from None
    except Unreadable as exc:
        raise BadTarget(f"{target.path!r} cannot be read as text now ({exc})") from None
    lines = text.split("\n")
    start = target.start or 1
    if start > len(lines):
        raise BadTarget(f"{target.path!r} has {len(lines)} lines; line {start} does not exist")
    end = min(target.end or len(lines), len(lines), start + max_lines - 1)
    return Passage(label, rel, start, end, tuple(lines[start - 1:end]), len(lines),
                   changed=record.hash not in ("", content_hash(data)),
                   extracted=is_extracted(rel))


def _image_passage(label: str, rel: str, data: bytes, include_image: bool,
                   changed: bool) -> Passage:
    """An image file read: its metadata as one line, and its downscaled copy if asked."""
    import base64

    from semlith.ingest.formats.limits import Unreadable
    from semlith.ingest.images import preview, read_image

    try:
        image = read_image(data)
        shown, mime = preview(data) if include_image else (b"", "")
    except Unreadable as exc:
        raise BadTarget(f"{rel!r} cannot be read as an image now ({exc})") from None
    line = (f"image {image.width}x{image.height} {image.format}, {len(data):,} bytes"
            + (f"; attached as {mime}, {len(shown):,} bytes" if shown else ""))
    return Passage(label, rel, 1, 1, (line,), 1, changed=changed,
                   image=base64.b64encode(shown).decode("ascii"), image_mime=mime)


def _with_symbol(passage: Passage, symbol: str) -> Passage:
    from dataclasses import replace

    return replace(passage, symbol=symbol)


def _inside_root(root: Path, rel: str) -> Path:
    """`rel` under `root`, refused when it climbs out (`..`, absolute, a symlink out)."""
    from pathlib import PurePosixPath

    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts or not rel.strip():
        raise BadTarget(f"{rel!r} is not a path relative to the store's root")
    real_root = root.resolve()
    path = (real_root / pure).resolve()
    if path != real_root and real_root not in path.parents:
        raise BadTarget(f"{rel!r} leads outside the store's root")
    return path


def _relative(path: Path, holder: Known) -> str:
    assert holder.root is not None
    return path.resolve().relative_to(holder.root.resolve()).as_posix()


def _posix(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./")


def _pathlike(selector: str) -> bool:
    return "/" in selector or "\\" in selector or selector.startswith((".", "~"))

