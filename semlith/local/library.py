"""`LocalLibrary`: `semlith.library.Library` in this process, over a `StoreSource`.

Where the stores come from is the source (semlith/local/sources.py): `OnDemand` opens
them per call (the CLI without a daemon), the daemon's `Fleet` holds them writable and
watched (semlith/local/fleet.py). Everything else — scopes, searching, reading,
indexing — is the same code for both.

A library serves either the person who runs semlith (`agent=False`: any folder can be
indexed, any store folder named) or an agent (`agent=True`): then only registered
stores are addressed, nothing is created, and every path must resolve inside a served
root (no `..`, no symlink leading out).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from semlith.base.home import registered_stores
from semlith.base.settings import Settings
from semlith.base.weights import Weights
from semlith.errors import BadTarget, Hint, ModelError, SemlithError
from semlith.library import MAX_K, OnEvent, OnProgress, OnSkip
from semlith.local.engine import Engine
from semlith.local.grep import Search as GrepSearch
from semlith.local.grep import collect, compile_pattern, grep_sides
from semlith.local.reader import Reader, holder_of
from semlith.local.scope import Known, Resolved, resolve
from semlith.local.sources import OnDemand, Opened, StoreSource, attach_mirror, renamed
from semlith.setup.inventory import Installation
from semlith.store import Store
from semlith.types import (
    Answer,
    Definition,
    FileEntry,
    Filters,
    IndexReport,
    Scope,
    SkipEntry,
    Status,
    StoreEntry,
    StoreStats,
    Watched,
)
from semlith.types.activity import Agents, Run
from semlith.types.graph import Brief, GraphPath, Impact, Neighbors
from semlith.types.grep import Matches

if TYPE_CHECKING:  # the model's, the ranking's, the graph's and indexing's modules load
    import numpy as np  # only in the methods that use them: a grep, a read or a `files`

    from semlith.embed.text import Embedder  # in a fresh CLI imports none (issue #45)
    from semlith.local.target import Creator, IndexTarget


class LocalLibrary(Reader, Installation):
    """`semlith.library.Library` in this process."""

    def __init__(self, settings: Settings, *,
                 embedder_factory: Callable[[str], Embedder] | None = None,
                 engine: Engine | None = None, source: StoreSource | None = None,
                 agent: bool = False, weights: Weights | None = None) -> None:
        self.settings = settings
        self.engine = engine or Engine(settings, embedder_factory)
        self.source: StoreSource = source or OnDemand(settings)
        self.agent = agent
        self.weights = weights or settings.ranking
        self._owns_engine = engine is None

    def close(self) -> None:
        if self._owns_engine:
            self.engine.close()

    # -- choosing stores ----------------------------------------------------------------

    def _resolve(self, scope: Scope, *, fallback_all: bool = False,
                 known: list[Known] | None = None) -> Resolved:
        return resolve(scope, self.source.known() if known is None else known,
                       registered_only=self.agent, fallback_all=fallback_all)

    @contextlib.contextmanager
    def _reading(self, scope: Scope, known: list[Known] | None = None
                 ) -> Iterator[tuple[Opened, str]]:
        resolved = self._resolve(scope, known=known)
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
            return self._search(opened, note, query, k, filters, vector)

    def _search(self, opened: Opened, note: str, query: str, k: int, filters: Filters,
                vector: np.ndarray | None) -> Answer:
        if opened.failed and not opened:
            raise SemlithError("no store could be searched: " + "; ".join(
                f"{label}: {why}" for label, why in opened.failed))
        from semlith.search.searcher import Searcher

        self.source.ready()
        searcher = Searcher(opened, self.engine.pool, self.weights, self.engine.executor,
                            images=self.engine.image_model)
        hits = searcher.search(query, k, filters, image=vector)
        failed = [*opened.failed, *searcher.failed]
        return Answer(tuple(hits), tuple(name for name, _ in opened), note,
                      tuple(f"{label}: {why}" for label, why in failed))

    def grep(self, pattern: str, *, regex: bool = False, context: int = 0,
             before: int | None = None, after: int | None = None, limit: int = 100,
             files_only: bool = False, count: bool = False, filters: Filters = Filters(),
             scope: Scope = Scope()) -> Matches:
        sides = grep_sides(limit, context, before, after)
        search = GrepSearch(compile_pattern(pattern, regex), sides, filters)
        gate = self.engine.greps.enter(search.deadline)  # waiting counts in the deadline
        with gate as turn, self._reading(scope) as (opened, note):
            search.waited = not turn
            return collect(search, opened if turn else Opened(), note, limit,
                           files_only or count)

    def _image_vector(self, image: str) -> np.ndarray:
        """The image model's vector of an image file: for an agent, only a file inside
        an indexed root; for a person, any file they can read."""
        from semlith.ingest.formats.limits import Unreadable
        from semlith.ingest.images import read_image

        path = Path(image).expanduser()
        if self.agent:
            holder_of(path.resolve(), self.source.known())
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
        from semlith.graph import answers as graph
        from semlith.search.symbols import find_symbols

        with self._reading(scope) as (opened, _):
            hits = find_symbols(opened, name, limit)
            return [graph.with_calls(opened, hits[0]), *hits[1:]] if hits else hits

    def neighbors(self, name: str, *, kinds: Sequence[str] = (), filters: Filters = Filters(),
                  all_edges: bool = False, budget: int = 4000, scope: Scope = Scope()
                  ) -> Neighbors:
        from semlith.graph import answers as graph

        with self._reading(scope) as (opened, _):
            return graph.neighbors(opened, name, kinds=kinds, filters=filters,
                                   all_edges=all_edges, budget=budget)

    def impact(self, name: str, *, depth: int = 3, filters: Filters = Filters(),
               all_edges: bool = False, budget: int = 4000, scope: Scope = Scope()
               ) -> Impact:
        from semlith.graph import answers as graph

        with self._reading(scope) as (opened, _):
            return graph.impact(opened, name, depth=depth, filters=filters,
                                all_edges=all_edges, budget=budget)

    def path(self, source: str, target: str, *, filters: Filters = Filters(),
             all_edges: bool = False, budget: int = 4000, scope: Scope = Scope()
             ) -> GraphPath:
        from semlith.graph import answers as graph

        with self._reading(scope) as (opened, _):
            return graph.path(opened, source, target, filters=filters, all_edges=all_edges,
                              budget=budget)

    def brief(self, question: str, *, budget: int = 2000, scope: Scope = Scope()) -> Brief:
        if not question.strip():
            raise ValueError("the query is empty")
        from semlith.graph.brief import brief as graph_brief

        with self._reading(scope) as (opened, note):  # the registry read once, not twice
            answer = self._search(opened, note, question, 5, Filters(), None)
            return graph_brief(opened, question, answer, budget=budget)

    def files(self, *, scope: Scope = Scope()) -> list[FileEntry]:
        with self._reading(scope) as (opened, _):
            _listed_here(opened, "files")
            return [FileEntry(label, f.path, f.size, f.lang,
                              "indexed" if f.hash else "pending", f.redacted)
                    for label, store in opened for f in store.corpus.files()]

    def skipped(self, *, scope: Scope = Scope()) -> list[SkipEntry]:
        with self._reading(scope) as (opened, _):
            _listed_here(opened, "skipped files")
            return [entry for label, store in opened for entry in [  # and what was cut as text
                *(SkipEntry(label, r.path, r.reason, r.detail)
                  for r in store.corpus.skipped().values()),
                *(SkipEntry(label, path, "text", why)
                  for path, why in store.corpus.cut_as_text().items())]]

    def stats(self, *, scope: Scope = Scope()) -> list[StoreStats]:
        from semlith.local.stats import store_stats
        from semlith.store.checks import cache_summary

        resolved, cache = self._resolve(scope), self.engine.vector_cache
        with self.source.reading(resolved.stores) as opened:
            return store_stats(opened, resolved.stores, self.source,
                               None if cache is None else cache_summary(cache),
                               self.settings.home)

    def stores(self) -> list[StoreEntry]:
        served = {k.folder.resolve() for k in self.source.known()} \
            if self.source.served_by else set()
        return [StoreEntry(e.name, e.folder, e.root, e.model,
                           Store.exists(Path(e.folder)),
                           Path(e.folder).resolve() in served)
                for e in registered_stores(self.settings.home)]

    def status(self) -> Status:
        return self.source.status()

    def runs(self) -> list[Run]:
        return self.engine.runs.runs()

    def stop_run(self, store: str) -> bool:
        return self.engine.runs.stop(store)

    def agents(self) -> Agents:
        from semlith.setup.agents import describe_agents

        port = self.source.status().port if self.source.served_by else self.settings.port
        return describe_agents(self.settings, port)

    # -- writing ------------------------------------------------------------------------

    def index(self, paths: Sequence[str] = (), *, store: str | None = None,
              model: str | None = None, backend: str | None = None,
              time_budget: float | None = None, on_progress: OnProgress | None = None,
              on_skip: OnSkip | None = None, allow_system: bool = False,
              verify: bool = False) -> IndexReport:
        from semlith.local.indexing import run_index
        from semlith.store.checks import verify as verify_store

        target = self._target(paths, store)
        create = None if self.agent else self._creator(target, model, backend, allow_system)
        home = self.settings.home
        was = {Path(e.folder).resolve(): e.name for e in registered_stores(home)}
        with self.source.writing(target.folder, create) as (label, opened):
            taken = renamed(home, opened, was.get(target.folder.resolve()))
            if model and model != opened.model:
                raise ModelError(f"store {str(target.folder)!r} was built with model "
                                 f"{opened.model!r}; a store keeps its model (asked for "
                                 f"{model!r}); use a new --store")
            opened.check_backend(backend)
            self._refuse_mirror(opened)
            skip = None if on_skip is None else (
                lambda s: on_skip(s.rel, str(s.reason), s.detail))
            verified = verify_store(opened) if verify else {}
            track = self.engine.runs.start(label, str(opened.root),
                                           "agent" if self.agent else "index")
            report = run_index(opened, self.engine.pool, target.paths, time_budget=time_budget,
                               on_progress=on_progress, on_skip=skip, track=track)
            report.verified = verified
            report.store, report.created = label, create is not None and create.called
            report.renamed_from, report.name_taken_by = taken
            report.by_daemon = self.source.served_by
            return report

    def _target(self, raw: Sequence[str], selector: str | None) -> IndexTarget:
        from semlith.local.target import index_target

        return index_target(self.source.known(), raw, selector, agent=self.agent)

    def _creator(self, target: IndexTarget, model: str | None = None,
                 backend: str | None = None, allow_system: bool = False) -> Creator:
        from semlith.local.target import Creator

        return Creator(self.settings, target, lambda name: self.engine.pool.get(name).dim,
                       model, backend, allow_system)

    @staticmethod
    def _refuse_mirror(store: Store) -> None:
        """A mirror refuses writes: its own indexer indexes it (docs/scale-out.md)."""
        if not store.corpus.writable:
            raise BadTarget(f"store {store.name!r} is a mirror of {store.corpus.origin}; its "
                            "own indexer indexes it, on the machine that holds its files")

    def watch(self, paths: Sequence[str] = (), *, store: str | None = None,
              debounce: float = 0.5, on_event: OnEvent | None = None,
              stop: threading.Event | None = None) -> Watched:
        from semlith.local.indexing import watch_here

        target = self._target(paths, store)
        create = None if self.agent else self._creator(target)
        say = on_event or (lambda line: None)
        if self.source.served_by:  # the daemon watches every store it holds
            with self.source.writing(target.folder, create) as (label, opened):
                self._refuse_mirror(opened)
                return Watched(label, str(opened.root), self.source.served_by)
        with self.source.writing(target.folder, create) as (label, opened):
            self._refuse_mirror(opened)
            return watch_here(opened, label, self.engine, target.paths, debounce=debounce,
                              say=say, stop=stop or threading.Event())

    def attach(self, backend: str) -> StoreEntry:
        return attach_mirror(self.settings, backend)

    def forget(self, path: str, *, store: str | None = None) -> int:
        target = self._target([path], store)
        (resolved,) = target.paths
        with self.source.writing(target.folder, None) as (label, opened):
            self._refuse_mirror(opened)
            try:
                rel = resolved.relative_to(opened.root.resolve()).as_posix()
            except ValueError:
                raise BadTarget(f"{path!r} is outside the store's root "
                                f"{str(opened.root)!r}") from None
            removed = opened.forget(rel)
            if not removed:  # "forgot 0 files" read as success (issue #25)
                raise BadTarget(f"{path!r} matches no indexed file of store {label!r} "
                                "(paths are taken literally, not as patterns)",
                                hint=Hint.LIST_FILES)
            return removed


def _listed_here(opened: Opened, what: str) -> None:
    """Asked of mirrors only, say that their lists are kept where their files are, rather
    than answer an empty one (among other stores a mirror adds nothing to the list)."""
    mirrors = [(label, store) for label, store in opened if not store.corpus.reads_files]
    if mirrors and len(mirrors) == len(opened):
        label, store = mirrors[0]
        raise BadTarget(f"store {label!r} is a mirror of {store.corpus.origin}: its {what} "
                        "are listed on the machine that indexes it")
