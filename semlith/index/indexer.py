"""walk -> hash -> extract -> chunk -> embed -> store, checkpointed and resumable.

A run has two phases. The scan walks the tree and decides each file (`scan.decide`):
size and mtime are compared with the catalog (an unchanged file is not even read), what
changed is hashed (xxh3-128), and renames and copies found by content hash are applied
without embedding anything. The embed phase (`embed_phase.py`) cuts each changed file
(`cutting.py`), writes its rows at once, embeds its chunks in paced batches and commits
a file's hash only after its vectors are durable. A killed run leaves its unfinished
files pending; the next run redoes only those.

Each file records the secret rules it was read with (`secrets.rules_fingerprint`);
after they change, the next run reads each unchanged file once more and redoes (or
removes) only those they now change, and reuses no chunks read under other rules for a
move or a copy.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from semlith.base.languages import catalog_kind, language_of
from semlith.base.names import escape_name
from semlith.base.roles import embed_rank
from semlith.embed.text import Embedder
from semlith.index.cutting import read_walked, withholds
from semlith.index.edges import copy_edges, refresh_edges
from semlith.index.embed_phase import EmbedPhase, Todo
from semlith.index.images import ImageModel, default_model
from semlith.index.scan import Action, FileState, decide
from semlith.ingest.definitions import chunking_fingerprint
from semlith.ingest.reading import content_hash
from semlith.ingest.secrets import redact_name, rules_fingerprint
from semlith.ingest.walk import (
    Candidate,
    Skipped,
    SkipReason,
    is_ignored,
    is_opted_in,
    walk_files,
)
from semlith.store import Store
from semlith.store.query import file_with_hash
from semlith.store.rows import FileRecord, SkipRecord
from semlith.types import IndexReport, Progress
from semlith.types.skips import count_skips


@dataclass(slots=True)
class _Run:
    """One run's scan state: made once, in `Indexer.run`, and handed to each step."""

    report: IndexReport
    scopes: list[str]
    rules: str  # the secret rules every file is read with (secrets.rules_fingerprint)
    by_rules: set[str] = field(default_factory=set)  # unchanged files the rules now change
    vanished: dict[str, FileRecord] = field(default_factory=dict)  # indexed, not walked


class Indexer:
    """Keeps one store in step with the files under its root."""

    def __init__(self, store: Store, root: Path, embedder: Callable[[], Embedder], *,
                 on_progress: Callable[[Progress], None] | None = None,
                 on_skip: Callable[[Skipped], None] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 images: Callable[[], ImageModel] | None = None,
                 stopped: Callable[[], bool] = lambda: False,
                 model_ready: Callable[[], bool] = lambda: False) -> None:
        self.store, self._model_ready = store, model_ready  # ready: no "model" phase
        self.stopped = stopped  # True: end between two files, as a spent time budget does
        self._image_model = images or default_model(store)
        self.clock = clock  # tests pass a fake one to play a slow machine
        self.root = root
        self._embedder_factory = embedder
        self._embedder: Embedder | None = None
        self.on_progress = on_progress or (lambda p: None)
        self.on_skip = on_skip or (lambda s: None)

    @property
    def embedder(self) -> Embedder:
        """Loaded on first use: a run with nothing to embed never loads the model."""
        if self._embedder is None:
            self._embedder = self._embedder_factory()
        return self._embedder

    def run(self, paths: Sequence[Path] = (), *, time_budget: float | None = None) -> IndexReport:
        """Index `paths` (files or folders under the root; default: the whole root)."""
        start = self.clock()
        catalog = self.store.catalog
        interrupted = catalog.meta("run_state") == "running"
        with catalog.transaction():
            catalog.set_meta("run_state", "running")
        scopes = _outermost([self._relative(p) for p in paths]) or [""]
        run = _Run(IndexReport(), scopes, rules_fingerprint())
        report = run.report
        todo = self._scan(run)
        report.rechecked = sum(1 for t in todo if t.cand.rel in run.by_rules)
        report.rechunked = sum(1 for t in todo if t.record and t.record.hash == t.digest) \
            - report.rechecked
        if interrupted:
            report.interrupted, report.resumed = True, report.unchanged
        todo = self._reuse(todo, run)
        todo.sort(key=_embed_order)
        phase = EmbedPhase(self.store, report, run.rules, embedder=self._load_embedder,
                           images=self._image_model, clock=self.clock, stopped=self.stopped,
                           on_progress=self.on_progress, on_skip=self.on_skip)
        phase.run(todo, start, time_budget)
        if not report.pending:
            refresh_edges(self.store, self.root, scopes, {t.cand.rel for t in todo})
        if report.complete:
            with catalog.transaction():
                catalog.set_meta("run_state", "complete")
        report.seconds = self.clock() - start
        self.on_progress(Progress("done", report.indexed, report.indexed, report.chunks,
                                  phase.pace.rate or 0.0, 0.0, chunks_total=report.chunks))
        return report

    def _load_embedder(self) -> Embedder:
        """The model, loaded on first use; a "model" event says the run waits for it."""
        if self._embedder is None and not self._model_ready():
            self.on_progress(Progress("model", 0, 0, 0, 0.0, None))
        return self.embedder

    def _relative(self, path: Path) -> str:
        try:
            rel = path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            raise ValueError(f"{str(path)!r} is outside the store's root "
                             f"{str(self.root)!r}") from None
        return "" if rel == "." else rel

    # -- scan ----------------------------------------------------------------------------

    def _walk(self, scopes: list[str]) -> Iterable[Candidate | Skipped]:
        exclude = [self.store.folder]
        for scope in scopes:
            target = self.root / scope
            if scope and not target.is_dir():
                reason = is_ignored(self.root, scope, exclude=exclude)
                if reason is not None:
                    yield Skipped(_recorded(scope), reason)
                elif target.is_file():
                    st = target.stat()
                    yield Candidate(target, scope, st.st_size, st.st_mtime_ns,
                                    is_opted_in(self.root, scope, exclude=exclude))
                continue
            yield from walk_files(self.root, start=scope, exclude=exclude)

    def _scan(self, run: _Run) -> list[Todo]:
        """Walk the scopes and decide each file (`scan.decide`); returns the files to
        embed, copy or rename, and leaves the vanished ones in `run.vanished`."""
        catalog, scopes = self.store.catalog, run.scopes
        known = {f.path: f for f in catalog.files() if _in_scopes(f.path, scopes)}
        before = {}
        for scope in scopes:  # a scope named by a path that is not UTF-8: its skip record
            before.update(catalog.skipped(_recorded(scope)))
        seen: set[str] = set()
        checked: list[int] = []  # files read under older rules that they leave as they are
        skipped: list[SkipRecord] = []
        todo: list[Todo] = []
        looked = 0
        for item in self._walk(scopes):
            if isinstance(item, Skipped) and item.reason == SkipReason.STORE:
                continue  # the store's own folder is not the user's content
            looked += 1
            self.on_progress(Progress("scan", 0, len(todo), 0, 0.0, None, item.rel,
                                      files_seen=looked))
            if isinstance(item, Skipped):
                skipped.append(SkipRecord(item.rel, str(item.reason), item.detail))
                self.on_skip(item)
                continue
            if item.rel in seen:
                continue  # reached twice (a file and its folder both in scope)
            seen.add(item.rel)
            state = FileState(item.rel, (item.size, item.mtime_ns), known.get(item.rel),
                              chunking_fingerprint(language_of(item.rel)), run.rules,
                              before.get(item.rel), item.opted_in)
            try:
                action, state = self._settle(item, state, run, checked)
            except OSError as exc:
                skipped.append(SkipRecord(item.rel, "unreadable",
                                          escape_name(exc.strerror or str(exc))))
                seen.discard(item.rel)
                continue
            record = state.record
            if action is Action.REUSE:
                if record is not None and (record.size, record.mtime_ns) != state.stat:
                    with catalog.transaction() as db:  # touched, not changed
                        catalog.touch_file(db, record.id, item.size, item.mtime_ns)
                run.report.unchanged += 1
            elif action is Action.SKIP and state.skip is not None:
                skipped.append(state.skip)
            else:  # to copy or embed; the vanished files are known after the walk
                todo.append(Todo(item, state))
        count_skips(run.report, (record.reason for record in skipped))
        with catalog.transaction() as db:
            for scope in scopes:
                catalog.replace_skipped(db, _recorded(scope), [])
            catalog.add_skipped(db, skipped)
            catalog.set_rules(db, checked, run.rules)
        run.vanished = {path: rec for path, rec in known.items() if path not in seen}
        return todo

    def _settle(self, item: Candidate, state: FileState, run: _Run,
                checked: list[int]) -> tuple[Action, FileState]:
        """Decide `item`, reading what the decision asks for. Raises OSError when its
        bytes cannot be read."""
        while True:
            action = decide(state)
            if action is Action.RECHECK and state.record is not None:
                changes = withholds(item)
                if changes:
                    run.by_rules.add(item.rel)
                else:
                    checked.append(state.record.id)
                state = state.knowing(withholds=changes)
            elif action is Action.READ:
                state = state.knowing(digest=content_hash(read_walked(item)))
            else:
                return action, state

    # -- renames and copies --------------------------------------------------------------

    def _reuse(self, todo: list[Todo], run: _Run) -> list[Todo]:
        """Apply moves and copies by content hash; returns what still needs embedding."""
        catalog, report = self.store.catalog, run.report
        gone_by_hash = {rec.hash: rec for rec in run.vanished.values() if rec.hash}
        left: list[Todo] = []
        for item in todo:
            gone = gone_by_hash.pop(item.digest, None)
            action = decide(item.state.knowing(moved_from=gone))
            if action is Action.RENAME and gone is not None:
                with catalog.transaction() as db:
                    catalog.move_file(db, gone.id, item.cand.rel, size=item.cand.size,
                                      mtime_ns=item.cand.mtime_ns, **catalog_kind(item.cand.rel))
                del run.vanished[gone.path]
                report.moved += 1
            elif action is Action.COPY and self._copy(item, run.rules):
                report.copied += 1
            else:  # to embed: new bytes, or the same bytes to cut anew
                left.append(item)
        removed = [path for path, rec in run.vanished.items()
                   if decide(FileState(path, None, rec)) is Action.REMOVE]
        with catalog.transaction() as db:
            report.removed += catalog.delete_files(db, removed)
        self.store.checkpoint()
        return left

    def _copy(self, item: Todo, rules: str) -> bool:
        """Give a file the chunks and vectors of an identical indexed file, if there is one."""
        catalog = self.store.catalog
        # chunks read under today's secret rules only
        match = file_with_hash(catalog, item.digest, item.cand.rel, rules)
        if match is None:
            return False
        twin, redacted = match
        source = catalog.chunk_rows(twin)
        found, vectors = self.store.vectors.fetch(np.array([i for i, _ in source], np.uint64))
        if not source or not found.all():
            return False
        chunker, chunking = catalog.file_chunker(twin)
        if chunking != chunking_fingerprint(language_of(item.cand.rel)):
            return False  # the copy's chunks were cut differently: cut them anew
        with catalog.transaction() as db:
            file_id = catalog.put_file(db, item.cand.rel, size=item.cand.size,
                                       mtime_ns=item.cand.mtime_ns, chunker=chunker,
                                       chunking=chunking, redacted=redacted,
                                       rules=rules, **catalog_kind(item.cand.rel))
            ids = catalog.replace_chunks(db, file_id, [r for _, r in source])
            catalog.copy_symbols(db, twin, file_id,
                                 {old: new for (old, _), new in zip(source, ids, strict=True)})
            copy_edges(db, twin, file_id)  # an identical file: identical edges
        self.store.add_vectors(ids, vectors)
        self.store.checkpoint([(file_id, item.digest)])
        return True


def _embed_order(item: Todo) -> tuple[int, int, str]:
    """Source before docs before tests before vendored and generated files
    (roles.embed_rank); within a role the most recently changed first."""
    return (embed_rank(item.cand.rel), -item.cand.mtime_ns, item.cand.rel)


def _outermost(scopes: list[str]) -> list[str]:
    """Scopes without those inside another ('' covers everything)."""
    unique = sorted(set(scopes), key=len)
    kept: list[str] = []
    for scope in unique:
        if not _in_scopes(scope, kept):
            kept.append(scope)
    return kept


def _in_scopes(path: str, scopes: list[str]) -> bool:
    return any(not s or path == s or path.startswith(s.rstrip("/") + "/") for s in scopes)


def _recorded(rel: str) -> str:
    """A path as skip records hold it: on one line, any token in its names redacted."""
    return escape_name(redact_name(rel))
