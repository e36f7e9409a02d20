"""walk -> hash -> extract -> chunk -> embed -> store, checkpointed and resumable.

A run has two phases. The scan walks the tree, compares size and mtime with the
catalog (an unchanged file is not even read) and hashes what changed (xxh3-128), then
applies renames and copies found by content hash without embedding anything. The embed
phase extracts and chunks each changed file, writes its rows to SQLite at once (so it is
keyword-searchable within a second), embeds chunks in length-sorted batches and
checkpoints after each: vectors are durable before a file's hash is committed. Batches are
sized by `pace.Pace` to take a few seconds each, however slow the machine, so a run
killed often still commits its work. A killed run leaves its unfinished files pending;
the next run redoes only those.

Text reaches the store only through `document.read_document`: secret files are skipped
with the reason "secret", credential-shaped strings are redacted. Each file records the
rules it was read with (`secrets.rules_fingerprint`); after they change, the next run
reads each unchanged file once more and redoes (or removes) only those they now change,
and reuses no chunks read under other rules for a move or a copy.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import xxhash

from semlith.edge_index import copy_edges, file_edges, refresh_edges, write_file_edges
from semlith.embed.text import Embedder, embed_counting
from semlith.image_index import ImageIndexer, ImageModel, default_model
from semlith.ingest.chunk import MAX_CHUNKS_PER_FILE, Chunked, chunk_file, split_identifiers
from semlith.ingest.definitions import chunking_fingerprint
from semlith.ingest.document import read_document
from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.generated import check_generated, skip_record
from semlith.ingest.images import is_image
from semlith.ingest.names import escape_name
from semlith.ingest.reading import limit_for, read_file
from semlith.ingest.secrets import redact_name, rules_fingerprint
from semlith.ingest.walk import (
    Candidate,
    Skipped,
    SkipReason,
    is_ignored,
    is_opted_in,
    walk_files,
)
from semlith.languages import language_of
from semlith.pace import TARGET_SECONDS, Pace, estimate_total
from semlith.roles import embed_rank
from semlith.scan import Action, FileState, decide
from semlith.store import ChunkRow, Store, count_vectors
from semlith.store.catalog import FileRecord, SkipRecord
from semlith.store.query import file_with_hash
from semlith.types import IndexReport, Progress

# Rows waiting this long for their vectors are embedded (and checkpointed) even when
# fewer than a batch: extracting big files can be slower than embedding.
CHECKPOINT_SECONDS = TARGET_SECONDS


@dataclass(slots=True)
class _Todo:
    """A file the run embeds, copies or renames: what the scan found (`scan.decide`)."""

    cand: Candidate
    state: FileState  # with its digest
    digest: str = ""  # of the bytes indexed (read again when embedding)
    redacted: int = 0
    edges: Any = None  # its FileEdges (edge_index.py); None: its language has none

    def __post_init__(self) -> None:
        self.digest = self.digest or self.state.digest or ""

    @property
    def record(self) -> FileRecord | None:
        return self.state.record


@dataclass(slots=True)
class _Pending:
    """Chunks written to SQLite, waiting for their vectors."""

    file_ids: list[int] = field(default_factory=list)
    digests: dict[int, str] = field(default_factory=dict)
    left: dict[int, int] = field(default_factory=dict)  # file id -> chunks still to embed
    ids: list[int] = field(default_factory=list)
    owners: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Run:
    """One run's state: made once, in `Indexer.run`, and handed to each step."""

    report: IndexReport
    scopes: list[str]
    rules: str  # the secret rules every file is read with (secrets.rules_fingerprint)
    start: float
    budget: float | None
    last_checkpoint: float
    pace: Pace = field(default_factory=Pace)
    by_rules: set[str] = field(default_factory=set)  # unchanged files the rules now change
    vanished: dict[str, FileRecord] = field(default_factory=dict)  # indexed, not walked
    truncated: list[str] = field(default_factory=list)  # files cut at MAX_CHUNKS_PER_FILE
    skipped: int = 0  # files the embed phase could not read
    cut_bytes: int = 0  # text bytes cut so far ...
    text_bytes: int = 0  # ... of these, in all
    cut: int = 0  # chunks written so far
    cached: int = 0  # vectors the machine's vector cache gave


def content_hash(data: bytes) -> str:
    return xxhash.xxh3_128_hexdigest(data)


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
        run = _Run(IndexReport(), scopes, rules_fingerprint(), start, time_budget,
                   last_checkpoint=start)
        report = run.report
        todo = self._scan(run)
        report.rechecked = sum(1 for t in todo if t.cand.rel in run.by_rules)
        report.rechunked = sum(1 for t in todo if t.record and t.record.hash == t.digest) \
            - report.rechecked
        if interrupted:
            report.interrupted, report.resumed = True, report.unchanged
        todo = self._reuse(todo, run)
        todo.sort(key=_embed_order)
        self._embed_all(todo, run)
        if not report.pending:
            refresh_edges(self.store, self.root, scopes, {t.cand.rel for t in todo})
        if report.complete:
            with catalog.transaction():
                catalog.set_meta("run_state", "complete")
        report.seconds = self.clock() - start
        self.on_progress(Progress("done", report.indexed, report.indexed, report.chunks,
                                  run.pace.rate or 0.0, 0.0, chunks_total=report.chunks))
        return report

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

    def _scan(self, run: _Run) -> list[_Todo]:
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
        todo: list[_Todo] = []
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
                todo.append(_Todo(item, state))
        run.report.skipped += len(skipped)
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
                withholds = self._withholds(item)
                if withholds:
                    run.by_rules.add(item.rel)
                else:
                    checked.append(state.record.id)
                state = state.knowing(withholds=withholds)
            elif action is Action.READ:
                state = state.knowing(digest=content_hash(_read(item)))
            else:
                return action, state

    def _withholds(self, item: Candidate) -> bool:
        """Whether the secret rules change an indexed file (checked once after they
        change): withhold it, or redact a string in it. Unreadable now: the run finds out."""
        try:
            return read_document(item.rel, _read(item),
                                 opted_in=item.opted_in).redacted > 0
        except (Unreadable, OSError):
            return True

    # -- renames and copies --------------------------------------------------------------

    def _reuse(self, todo: list[_Todo], run: _Run) -> list[_Todo]:
        """Apply moves and copies by content hash; returns what still needs embedding."""
        catalog, report = self.store.catalog, run.report
        gone_by_hash = {rec.hash: rec for rec in run.vanished.values() if rec.hash}
        left: list[_Todo] = []
        for item in todo:
            gone = gone_by_hash.pop(item.digest, None)
            action = decide(item.state.knowing(moved_from=gone))
            if action is Action.RENAME and gone is not None:
                with catalog.transaction() as db:
                    catalog.move_file(db, gone.id, item.cand.rel, size=item.cand.size,
                                      mtime_ns=item.cand.mtime_ns, **_kind(item.cand.rel))
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

    def _copy(self, item: _Todo, rules: str) -> bool:
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
                                       rules=rules, **_kind(item.cand.rel))
            ids = catalog.replace_chunks(db, file_id, [r for _, r in source])
            catalog.copy_symbols(db, twin, file_id,
                                 {old: new for (old, _), new in zip(source, ids, strict=True)})
            copy_edges(db, twin, file_id)  # an identical file: identical edges
        self.store.add_vectors(ids, vectors)
        self.store.checkpoint([(file_id, item.digest)])
        return True

    # -- extract, chunk, embed -----------------------------------------------------------

    def _chunks_of(self, item: _Todo, run: _Run) -> Chunked | None:
        """Extract and chunk one file; None (and a skip record) when it cannot be read."""
        rel = item.cand.rel
        try:
            data = _read(item.cand)
            # The file may have changed since the scan hashed it: record the hash of
            # the bytes actually indexed, so the next run sees any later change.
            item.digest = content_hash(data)
            document = read_document(rel, data, opted_in=item.cand.opted_in)
            check_generated(rel, data)  # after the secret rules: a secret is reported so
        except Unreadable as exc:  # a secret, binary, generated or minified, or not text
            reason, detail = skip_record(exc)
            self._skip(item, reason, detail, run)
            if reason in (SkipReason.SECRET, SkipReason.GENERATED):  # news to the user
                self.on_skip(Skipped(rel, SkipReason(reason), detail))
            return None
        except OSError as exc:
            self._skip(item, "unreadable", exc.strerror or str(exc), run)
            return None
        item.redacted = document.redacted
        chunked = chunk_file(document.text, language_of(rel))
        item.edges = file_edges(document.text, language_of(rel))
        if len(chunked.chunks) >= MAX_CHUNKS_PER_FILE:
            run.truncated.append(rel)
        return chunked

    def _skip(self, item: _Todo, reason: str, detail: str, run: _Run) -> None:
        catalog = self.store.catalog
        rel = item.cand.rel
        with catalog.transaction() as db:
            catalog.delete_files(db, [rel])
            catalog.add_skipped(db, [SkipRecord(rel, reason, detail, item.cand.size,
                                                item.cand.mtime_ns)])
        run.skipped += 1

    def _embed_all(self, todo: list[_Todo], run: _Run) -> None:
        report = run.report
        run.text_bytes = sum(t.cand.size for t in todo if not is_image(t.cand.rel))
        pending = _Pending()
        images = ImageIndexer(self.store, self._image_model,
                              lambda db, rel, size, mtime_ns:
                              self._put_image(db, rel, size, mtime_ns, run.rules))
        run.last_checkpoint = self.clock()
        for n, item in enumerate(todo):
            if (run.budget is not None and self.clock() - run.start > run.budget) \
                    or self.stopped():
                report.pending = len(todo) - n
                break
            if is_image(item.cand.rel):  # out of the chunk estimate: one chunk, many bytes
                report.indexed += self._add_image(images, item, run)
                self._report(run, n + 1, len(todo), item.cand.rel)
                continue
            chunked = self._chunks_of(item, run)
            run.cut_bytes += item.cand.size
            if chunked is None:
                continue
            self._write_rows(item, chunked, pending, run.rules)
            run.cut += len(chunked.chunks)
            report.indexed += 1
            while len(pending.ids) >= run.pace.batch():
                report.chunks += self._embed_batch(pending, run)
            if self.clock() - run.last_checkpoint > CHECKPOINT_SECONDS:
                if pending.ids:
                    report.chunks += self._embed_batch(pending, run)
                else:
                    self._checkpoint(pending, run)
            self._report(run, n + 1, len(todo), item.cand.rel)
        while pending.ids:
            if self.stopped():  # the files not wholly embedded keep an empty hash, as
                left = set(pending.owners)  # after a kill: the next run redoes them
                report.indexed -= len(left)
                report.pending += len(left)
                break
            report.chunks += self._embed_batch(pending, run)
            self._report(run, len(todo) - report.pending, len(todo), "")
        images.flush()
        report.cached = count_vectors(self.store, run.cached, report.chunks - run.cached)
        report.chunks += images.embedded
        self._checkpoint(pending, run)
        report.skipped += run.skipped
        report.truncated = run.truncated

    def _add_image(self, images: ImageIndexer, item: _Todo, run: _Run) -> int:
        """Queue one image file for the image space: 1, or 0 with a skip record."""
        try:
            data = _read(item.cand)
        except OSError as exc:
            self._skip(item, "unreadable", exc.strerror or str(exc), run)
            return 0
        item.digest = content_hash(data)  # the bytes indexed, as for text files
        refused = images.add(item.cand.rel, data, item.cand.size, item.cand.mtime_ns,
                             item.digest)
        if refused is not None:
            self._skip(item, *refused, run)
            return 0
        return 1

    def _put_image(self, db: Any, rel: str, size: int, mtime_ns: int, rules: str) -> int:
        return self.store.catalog.put_file(
            db, rel, size=size, mtime_ns=mtime_ns, chunker="image",
            chunking=chunking_fingerprint(language_of(rel)), redacted=0, rules=rules,
            **_kind(rel))

    def _write_rows(self, item: _Todo, chunked: Chunked, pending: _Pending,
                    rules: str) -> None:
        catalog = self.store.catalog
        chunks = chunked.chunks
        rows = [ChunkRow(c.start_line, c.end_line, c.text, c.kind, c.symbol,
                         split_identifiers(f"{c.symbol} {c.text}")) for c in chunks]
        with catalog.transaction() as db:
            file_id = catalog.put_file(db, item.cand.rel, size=item.cand.size,
                                       mtime_ns=item.cand.mtime_ns, chunker=chunked.strategy,
                                       chunking=chunking_fingerprint(language_of(item.cand.rel)),
                                       redacted=item.redacted, rules=rules,
                                       **_kind(item.cand.rel))
            ids = catalog.replace_chunks(db, file_id, rows)
            catalog.add_symbols(db, file_id, [
                (s.name, s.qualname, s.kind, s.start_line, s.end_line,
                 ids[s.chunk] if 0 <= s.chunk < len(ids) else None, s.signature)
                for s in chunked.symbols])
            write_file_edges(db, file_id, item.cand.rel, item.edges)
            catalog.clear_skipped(db, item.cand.rel)
        pending.file_ids.append(file_id)
        pending.digests[file_id] = item.digest
        pending.left[file_id] = len(ids)
        pending.ids.extend(ids)
        pending.owners.extend([file_id] * len(ids))
        pending.texts.extend(c.embedding_text() for c in chunks)

    def _embed_batch(self, pending: _Pending, run: _Run) -> int:
        """Embed the next batch of pending chunks, store their vectors, checkpoint."""
        n = min(run.pace.batch(), len(pending.ids))
        if self._embedder is None and not self._model_ready():
            self.on_progress(Progress("model", 0, 0, 0, 0.0, None))
        embedder = self.embedder  # loaded before the clock starts: loading is not speed
        started = self.clock()
        vectors, cached = embed_counting(embedder, pending.texts[:n])
        run.cached += cached
        run.pace.record(n, self.clock() - started)
        self.store.add_vectors(pending.ids[:n], vectors)
        for owner in pending.owners[:n]:
            pending.left[owner] -= 1
        del pending.ids[:n], pending.owners[:n], pending.texts[:n]
        self._checkpoint(pending, run)
        return n

    def _checkpoint(self, pending: _Pending, run: _Run) -> None:
        """Commit the hashes of files whose every chunk now has a durable vector."""
        done = [(f, pending.digests.pop(f)) for f in pending.file_ids if pending.left[f] == 0]
        for file_id, _ in done:
            del pending.left[file_id]
        pending.file_ids = [f for f in pending.file_ids if f in pending.left]
        self.store.checkpoint(done)
        run.last_checkpoint = self.clock()

    def _report(self, run: _Run, done: int, total: int, path: str) -> None:
        """An "embed" event: the ETA is the chunks still to embed (estimated from the size
        of the files left) at the moving rate, not files at the average rate so far."""
        chunks = estimate_total(run.cut, run.cut_bytes, run.text_bytes)
        eta = run.pace.eta(chunks - run.report.chunks) if chunks else None
        self.on_progress(Progress("embed", done, total, run.report.chunks,
                                  run.pace.rate or 0.0, eta, path, chunks_total=chunks))


def _embed_order(item: _Todo) -> tuple[int, int, str]:
    """Source before docs before tests before vendored and generated files
    (roles.embed_rank); within a role the most recently changed first."""
    return (embed_rank(item.cand.rel), -item.cand.mtime_ns, item.cand.rel)


def _kind(rel: str) -> dict[str, str]:
    lang = language_of(rel)
    return {"ext": Path(rel).suffix.lower(), "lang": lang.name if lang else ""}


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


def _read(item: Candidate) -> bytes:
    """A walked file's bytes, judged again as it is now (it may have become a FIFO or
    grown past its limit since the walk): OSError otherwise."""
    return read_file(item.path, limit_for(item.rel))


def _recorded(rel: str) -> str:
    """A path as skip records hold it: on one line, any token in its names redacted."""
    return escape_name(redact_name(rel))
