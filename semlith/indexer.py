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
from semlith.ingest.formats import is_document
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
from semlith.store import ChunkRow, Store, count_vectors
from semlith.store.catalog import FileRecord, SkipRecord
from semlith.store.query import file_with_hash
from semlith.types import IndexReport, Progress

# Rows waiting this long for their vectors are embedded (and checkpointed) even when
# fewer than a batch: extracting big files can be slower than embedding.
CHECKPOINT_SECONDS = TARGET_SECONDS


@dataclass(slots=True)
class _Todo:
    cand: Candidate
    digest: str
    record: FileRecord | None
    redacted: int = 0
    edges: Any = None  # its FileEdges (edge_index.py); None: its language has none


@dataclass(slots=True)
class _Pending:
    """Chunks written to SQLite, waiting for their vectors."""

    file_ids: list[int] = field(default_factory=list)
    digests: dict[int, str] = field(default_factory=dict)
    left: dict[int, int] = field(default_factory=dict)  # file id -> chunks still to embed
    ids: list[int] = field(default_factory=list)
    owners: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


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
        report = IndexReport()
        catalog = self.store.catalog
        interrupted = catalog.meta("run_state") == "running"
        with catalog.transaction():
            catalog.set_meta("run_state", "running")
        scopes = _outermost([self._relative(p) for p in paths]) or [""]
        self._rules = rules_fingerprint()
        self._pace = Pace()
        todo = self._scan(scopes, report)
        report.rechecked = sum(1 for t in todo if t.cand.rel in self._by_rules)
        report.rechunked = sum(1 for t in todo if t.record and t.record.hash == t.digest) \
            - report.rechecked
        if interrupted:
            report.interrupted, report.resumed = True, report.unchanged
        todo = self._reuse(todo, scopes, report)
        todo.sort(key=_embed_order)
        self._embed_all(todo, report, start, time_budget)
        if not report.pending:
            refresh_edges(self.store, self.root, scopes, {t.cand.rel for t in todo})
        if report.complete:
            with catalog.transaction():
                catalog.set_meta("run_state", "complete")
        report.seconds = self.clock() - start
        self.on_progress(Progress("done", report.indexed, report.indexed, report.chunks,
                                  self._pace.rate or 0.0, 0.0, chunks_total=report.chunks))
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

    def _scan(self, scopes: list[str], report: IndexReport) -> list[_Todo]:
        catalog = self.store.catalog
        known = {f.path: f for f in catalog.files() if _in_scopes(f.path, scopes)}
        before = {}
        for scope in scopes:  # a scope named by a path that is not UTF-8: its skip record
            before.update(catalog.skipped(_recorded(scope)))
        seen: set[str] = set()
        self._by_rules: set[str] = set()  # unchanged files the secret rules now change
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
            record = known.get(item.rel)
            stat = (item.size, item.mtime_ns)
            # A file whose language is cut differently now (a new or better grammar query,
            # a new planner) is cut again, unchanged or not; so is one the secret rules
            # change, once after they change.
            force = record is not None and \
                record.chunking != chunking_fingerprint(language_of(item.rel))
            if record and record.hash and not force and record.rules != self._rules:
                if self._withholds(item):
                    force = True
                    self._by_rules.add(item.rel)
                else:
                    checked.append(record.id)
            if record and record.hash and (record.size, record.mtime_ns) == stat and not force:
                report.unchanged += 1
                continue
            old_skip = before.get(item.rel)
            if old_skip and (old_skip.size, old_skip.mtime_ns) == stat and \
                    not (old_skip.reason == "binary" and is_document(item.rel)) and \
                    not (is_image(item.rel) and old_skip.reason != "unreadable") and \
                    not (old_skip.reason == SkipReason.SECRET and item.opted_in):
                # Binary, unreadable or secret last time, and untouched. A document
                # skipped as binary was skipped by a semlith without its reader: read it now.
                skipped.append(old_skip)
                continue
            try:
                digest = content_hash(_read(item))
            except OSError as exc:
                skipped.append(SkipRecord(item.rel, "unreadable",
                                          escape_name(exc.strerror or str(exc))))
                seen.discard(item.rel)
                continue
            if record and record.hash == digest and not force:
                with catalog.transaction() as db:
                    catalog.touch_file(db, record.id, item.size, item.mtime_ns)
                report.unchanged += 1
                continue
            todo.append(_Todo(item, digest, record))
        report.skipped += len(skipped)
        with catalog.transaction() as db:
            for scope in scopes:
                catalog.replace_skipped(db, _recorded(scope), [])
            catalog.add_skipped(db, skipped)
            catalog.set_rules(db, checked, self._rules)
        self._vanished = {path: rec for path, rec in known.items() if path not in seen}
        return todo

    def _withholds(self, item: Candidate) -> bool:
        """Whether the secret rules change an indexed file (checked once after they
        change): withhold it, or redact a string in it. Unreadable now: the run finds out."""
        try:
            return read_document(item.rel, _read(item),
                                 opted_in=item.opted_in).redacted > 0
        except (Unreadable, OSError):
            return True

    # -- renames and copies --------------------------------------------------------------

    def _reuse(self, todo: list[_Todo], scopes: list[str], report: IndexReport) -> list[_Todo]:
        """Apply moves and copies by content hash; returns what still needs embedding."""
        catalog = self.store.catalog
        gone_by_hash = {rec.hash: rec for rec in self._vanished.values() if rec.hash}
        left: list[_Todo] = []
        for item in todo:
            gone = gone_by_hash.pop(item.digest, None)
            if gone is not None and gone.rules != self._rules:
                gone = None  # read under other secret rules: read the file anew
            if gone is not None and item.record is None:
                with catalog.transaction() as db:
                    catalog.move_file(db, gone.id, item.cand.rel, size=item.cand.size,
                                      mtime_ns=item.cand.mtime_ns, **_kind(item.cand.rel))
                del self._vanished[gone.path]
                report.moved += 1
            elif (item.record is not None and item.record.hash == item.digest) \
                    or not self._copy(item):  # an unchanged file is here to be re-cut
                left.append(item)
            else:
                report.copied += 1
        with catalog.transaction() as db:
            report.removed += catalog.delete_files(db, list(self._vanished))
        self.store.checkpoint()
        return left

    def _copy(self, item: _Todo) -> bool:
        """Give a file the chunks and vectors of an identical indexed file, if there is one."""
        catalog = self.store.catalog
        # chunks read under today's secret rules only
        match = file_with_hash(catalog, item.digest, item.cand.rel, self._rules)
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
                                       rules=self._rules, **_kind(item.cand.rel))
            ids = catalog.replace_chunks(db, file_id, [r for _, r in source])
            catalog.copy_symbols(db, twin, file_id,
                                 {old: new for (old, _), new in zip(source, ids, strict=True)})
            copy_edges(db, twin, file_id)  # an identical file: identical edges
        self.store.add_vectors(ids, vectors)
        self.store.checkpoint([(file_id, item.digest)])
        return True

    # -- extract, chunk, embed -----------------------------------------------------------

    def _chunks_of(self, item: _Todo) -> Chunked | None:
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
            self._skip(item, reason, detail)
            if reason in (SkipReason.SECRET, SkipReason.GENERATED):  # news to the user
                self.on_skip(Skipped(rel, SkipReason(reason), detail))
            return None
        except OSError as exc:
            self._skip(item, "unreadable", exc.strerror or str(exc))
            return None
        item.redacted = document.redacted
        chunked = chunk_file(document.text, language_of(rel))
        item.edges = file_edges(document.text, language_of(rel))
        if len(chunked.chunks) >= MAX_CHUNKS_PER_FILE:
            self._truncated.append(rel)
        return chunked

    def _skip(self, item: _Todo, reason: str, detail: str) -> None:
        catalog = self.store.catalog
        rel = item.cand.rel
        with catalog.transaction() as db:
            catalog.delete_files(db, [rel])
            catalog.add_skipped(db, [SkipRecord(rel, reason, detail, item.cand.size,
                                                item.cand.mtime_ns)])
        self._skipped += 1

    def _embed_all(self, todo: list[_Todo], report: IndexReport, start: float,
                   budget: float | None) -> None:
        self._truncated: list[str] = []
        self._skipped = 0
        # text bytes cut so far, in all
        self._bytes = [0, sum(t.cand.size for t in todo if not is_image(t.cand.rel))]
        self._cut = self._cached = 0  # chunks written so far; vectors the cache gave
        pending = _Pending()
        images = ImageIndexer(self.store, self._image_model, self._put_image)
        self._last_checkpoint = self.clock()
        for n, item in enumerate(todo):
            if (budget is not None and self.clock() - start > budget) or self.stopped():
                report.pending = len(todo) - n
                break
            if is_image(item.cand.rel):  # out of the chunk estimate: one chunk, many bytes
                report.indexed += self._add_image(images, item)
                self._report(report, n + 1, len(todo), item.cand.rel)
                continue
            chunked = self._chunks_of(item)
            self._bytes[0] += item.cand.size
            if chunked is None:
                continue
            self._write_rows(item, chunked, pending)
            self._cut += len(chunked.chunks)
            report.indexed += 1
            while len(pending.ids) >= self._pace.batch():
                report.chunks += self._embed_batch(pending)
            if self.clock() - self._last_checkpoint > CHECKPOINT_SECONDS:
                if pending.ids:
                    report.chunks += self._embed_batch(pending)
                else:
                    self._checkpoint(pending)
            self._report(report, n + 1, len(todo), item.cand.rel)
        while pending.ids:
            if self.stopped():  # the files not wholly embedded keep an empty hash, as
                left = set(pending.owners)  # after a kill: the next run redoes them
                report.indexed -= len(left)
                report.pending += len(left)
                break
            report.chunks += self._embed_batch(pending)
            self._report(report, len(todo) - report.pending, len(todo), "")
        images.flush()
        report.cached = count_vectors(self.store, self._cached, report.chunks - self._cached)
        report.chunks += images.embedded
        self._checkpoint(pending)
        report.skipped += self._skipped
        report.truncated = self._truncated

    def _add_image(self, images: ImageIndexer, item: _Todo) -> int:
        """Queue one image file for the image space: 1, or 0 with a skip record."""
        try:
            data = _read(item.cand)
        except OSError as exc:
            self._skip(item, "unreadable", exc.strerror or str(exc))
            return 0
        item.digest = content_hash(data)  # the bytes indexed, as for text files
        refused = images.add(item.cand.rel, data, item.cand.size, item.cand.mtime_ns,
                             item.digest)
        if refused is not None:
            self._skip(item, *refused)
            return 0
        return 1

    def _put_image(self, db: Any, rel: str, size: int, mtime_ns: int) -> int:
        return self.store.catalog.put_file(
            db, rel, size=size, mtime_ns=mtime_ns, chunker="image",
            chunking=chunking_fingerprint(language_of(rel)), redacted=0, rules=self._rules,
            **_kind(rel))

    def _write_rows(self, item: _Todo, chunked: Chunked, pending: _Pending) -> None:
        catalog = self.store.catalog
        chunks = chunked.chunks
        rows = [ChunkRow(c.start_line, c.end_line, c.text, c.kind, c.symbol,
                         split_identifiers(f"{c.symbol} {c.text}")) for c in chunks]
        with catalog.transaction() as db:
            file_id = catalog.put_file(db, item.cand.rel, size=item.cand.size,
                                       mtime_ns=item.cand.mtime_ns, chunker=chunked.strategy,
                                       chunking=chunking_fingerprint(language_of(item.cand.rel)),
                                       redacted=item.redacted, rules=self._rules,
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

    def _embed_batch(self, pending: _Pending) -> int:
        """Embed the next batch of pending chunks, store their vectors, checkpoint."""
        n = min(self._pace.batch(), len(pending.ids))
        if self._embedder is None and not self._model_ready():
            self.on_progress(Progress("model", 0, 0, 0, 0.0, None))
        embedder = self.embedder  # loaded before the clock starts: loading is not speed
        started = self.clock()
        vectors, cached = embed_counting(embedder, pending.texts[:n])
        self._cached += cached
        self._pace.record(n, self.clock() - started)
        self.store.add_vectors(pending.ids[:n], vectors)
        for owner in pending.owners[:n]:
            pending.left[owner] -= 1
        del pending.ids[:n], pending.owners[:n], pending.texts[:n]
        self._checkpoint(pending)
        return n

    def _checkpoint(self, pending: _Pending) -> None:
        """Commit the hashes of files whose every chunk now has a durable vector."""
        done = [(f, pending.digests.pop(f)) for f in pending.file_ids if pending.left[f] == 0]
        for file_id, _ in done:
            del pending.left[file_id]
        pending.file_ids = [f for f in pending.file_ids if f in pending.left]
        self.store.checkpoint(done)
        self._last_checkpoint = self.clock()

    def _report(self, report: IndexReport, done: int, total: int, path: str) -> None:
        """An "embed" event: the ETA is the chunks still to embed (estimated from the size
        of the files left) at the moving rate, not files at the average rate so far."""
        chunks = estimate_total(self._cut, *self._bytes)
        eta = self._pace.eta(chunks - report.chunks) if chunks else None
        self.on_progress(Progress("embed", done, total, report.chunks, self._pace.rate or 0.0,
                                  eta, path, chunks_total=chunks))


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
