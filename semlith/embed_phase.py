"""The embed phase of an index run: each changed file cut, written, embedded, committed.

Each file's rows are written to SQLite as soon as it is cut (`cutting.cut`), so it is
keyword-searchable within a second; its chunks wait for their vectors, embedded in
batches sized by `pace.Pace` to take a few seconds each, however slow the machine, and
a checkpoint follows each batch: a file's hash is committed only when its last vector is
durable (the crash protocol, store/store.py). A run killed often still commits its
work, and leaves its unfinished files pending for the next run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from semlith.cutting import Cut, content_hash, cut, read_walked
from semlith.edge_index import write_file_edges
from semlith.embed.text import Embedder, embed_counting
from semlith.image_index import ImageIndexer, ImageModel
from semlith.ingest.chunk import MAX_CHUNKS_PER_FILE, split_identifiers
from semlith.ingest.cost import file_allowance
from semlith.ingest.definitions import chunking_fingerprint
from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.generated import skip_record
from semlith.ingest.images import is_image
from semlith.ingest.walk import Candidate, Skipped, SkipReason
from semlith.languages import catalog_kind, language_of
from semlith.pace import TARGET_SECONDS, Pace, estimate_total
from semlith.scan import FileState
from semlith.store import ChunkRow, Store, count_vectors
from semlith.store.rows import FileRecord, SkipRecord
from semlith.types import IndexReport, Progress

# Rows waiting this long for their vectors are embedded (and checkpointed) even when
# fewer than a batch: extracting big files can be slower than embedding.
CHECKPOINT_SECONDS = TARGET_SECONDS


@dataclass(slots=True)
class Todo:
    """A file the scan left to embed (or to copy or rename, `scan.decide`)."""

    cand: Candidate
    state: FileState  # with its digest
    digest: str = ""  # of the bytes indexed (read again when the file is cut)

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


class EmbedPhase:
    """One run's embed phase and its state, made once per run by `Indexer.run`."""

    def __init__(self, store: Store, report: IndexReport, rules: str, *,
                 embedder: Callable[[], Embedder], images: Callable[[], ImageModel],
                 clock: Callable[[], float], stopped: Callable[[], bool],
                 on_progress: Callable[[Progress], None],
                 on_skip: Callable[[Skipped], None]) -> None:
        self.store, self.report, self.rules = store, report, rules
        self._embedder = embedder  # loads the model on first call (a "model" event)
        self._image_model = images
        self.clock, self.stopped = clock, stopped
        self.on_progress, self.on_skip = on_progress, on_skip
        self.pace = Pace()
        self._pending = _Pending()
        self._truncated: list[str] = []  # files cut at MAX_CHUNKS_PER_FILE
        self._skipped = 0  # files that could not be read or were refused now
        self._cut = self._cached = 0  # chunks written so far; vectors the cache gave
        self._cut_bytes = self._text_bytes = 0  # text bytes cut so far, of these in all
        self._last_checkpoint = 0.0
        self._allowance = file_allowance(store.settings.index_memory_mb << 20)

    def run(self, todo: list[Todo], start: float, budget: float | None) -> None:
        """Embed `todo` in order until done, `budget` seconds after `start` or stopped."""
        report, pending = self.report, self._pending
        self._text_bytes = sum(t.cand.size for t in todo if not is_image(t.cand.rel))
        images = ImageIndexer(self.store, self._image_model, self._put_image)
        self._last_checkpoint = self.clock()
        for n, item in enumerate(todo):
            if (budget is not None and self.clock() - start > budget) or self.stopped():
                report.pending = len(todo) - n
                break
            if is_image(item.cand.rel):  # out of the chunk estimate: one chunk, many bytes
                report.indexed += self._add_image(images, item)
                self._report(n + 1, len(todo), item.cand.rel)
                continue
            done = self._cut_file(item)
            self._cut_bytes += item.cand.size
            if done is None:
                continue
            self._write_rows(item, done)
            self._cut += len(done.chunked.chunks)
            report.indexed += 1
            while len(pending.ids) >= self.pace.batch():
                report.chunks += self._embed_batch()
            if self.clock() - self._last_checkpoint > CHECKPOINT_SECONDS:
                if pending.ids:
                    report.chunks += self._embed_batch()
                else:
                    self._checkpoint()
            self._report(n + 1, len(todo), item.cand.rel)
        while pending.ids:
            if self.stopped():  # the files not wholly embedded keep an empty hash, as
                left = set(pending.owners)  # after a kill: the next run redoes them
                report.indexed -= len(left)
                report.pending += len(left)
                break
            report.chunks += self._embed_batch()
            self._report(len(todo) - report.pending, len(todo), "")
        images.flush()
        report.cached = count_vectors(self.store, self._cached, report.chunks - self._cached)
        report.chunks += images.embedded
        self._checkpoint()
        report.skipped += self._skipped
        report.truncated = self._truncated

    def _cut_file(self, item: Todo) -> Cut | None:
        """Extract and chunk one file; None (and a skip record) when it cannot be read."""
        rel = item.cand.rel
        try:
            done = cut(item.cand, self._allowance)
        except Unreadable as exc:  # a secret, binary, generated, too large, or not text
            reason, detail = skip_record(exc)
            self._skip(item, reason, detail)
            if reason in (SkipReason.SECRET, SkipReason.GENERATED):  # news to the user
                self.on_skip(Skipped(rel, SkipReason(reason), detail))
            return None
        except OSError as exc:
            self._skip(item, "unreadable", exc.strerror or str(exc))
            return None
        item.digest = done.digest
        if len(done.chunked.chunks) >= MAX_CHUNKS_PER_FILE:
            self._truncated.append(rel)
        return done

    def _skip(self, item: Todo, reason: str, detail: str) -> None:
        catalog = self.store.catalog
        rel = item.cand.rel
        with catalog.transaction() as db:
            catalog.delete_files(db, [rel])
            catalog.add_skipped(db, [SkipRecord(rel, reason, detail, item.cand.size,
                                                item.cand.mtime_ns)])
        self._skipped += 1

    def _add_image(self, images: ImageIndexer, item: Todo) -> int:
        """Queue one image file for the image space: 1, or 0 with a skip record."""
        try:
            data = read_walked(item.cand)
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
            chunking=chunking_fingerprint(language_of(rel)), redacted=0, rules=self.rules,
            **catalog_kind(rel))

    def _write_rows(self, item: Todo, done: Cut) -> None:
        catalog, pending = self.store.catalog, self._pending
        chunked, rel = done.chunked, item.cand.rel
        chunks = chunked.chunks
        rows = [ChunkRow(c.start_line, c.end_line, c.text, c.kind, c.symbol,
                         split_identifiers(f"{c.keyword_symbol()} {c.text}")) for c in chunks]
        with catalog.transaction() as db:
            file_id = catalog.put_file(db, rel, size=item.cand.size,
                                       mtime_ns=item.cand.mtime_ns, chunker=chunked.strategy,
                                       chunking=chunking_fingerprint(language_of(rel)),
                                       redacted=done.redacted, rules=self.rules,
                                       **catalog_kind(rel))
            ids = catalog.replace_chunks(db, file_id, rows)
            catalog.add_symbols(db, file_id, [
                (s.name, s.qualname, s.kind, s.start_line, s.end_line,
                 ids[s.chunk] if 0 <= s.chunk < len(ids) else None, s.signature)
                for s in chunked.symbols])
            write_file_edges(db, file_id, rel, done.edges)
            catalog.clear_skipped(db, rel)
        pending.file_ids.append(file_id)
        pending.digests[file_id] = item.digest
        pending.left[file_id] = len(ids)
        pending.ids.extend(ids)
        pending.owners.extend([file_id] * len(ids))
        pending.texts.extend(c.embedding_text() for c in chunks)

    def _embed_batch(self) -> int:
        """Embed the next batch of pending chunks, store their vectors, checkpoint."""
        pending = self._pending
        n = min(self.pace.batch(), len(pending.ids))
        embedder = self._embedder()  # loaded before the clock starts: loading is not speed
        started = self.clock()
        vectors, cached = embed_counting(embedder, pending.texts[:n])
        self._cached += cached
        self.pace.record(n, self.clock() - started)
        self.store.add_vectors(pending.ids[:n], vectors)
        for owner in pending.owners[:n]:
            pending.left[owner] -= 1
        del pending.ids[:n], pending.owners[:n], pending.texts[:n]
        self._checkpoint()
        return n

    def _checkpoint(self) -> None:
        """Commit the hashes of files whose every chunk now has a durable vector."""
        pending = self._pending
        done = [(f, pending.digests.pop(f)) for f in pending.file_ids if pending.left[f] == 0]
        for file_id, _ in done:
            del pending.left[file_id]
        pending.file_ids = [f for f in pending.file_ids if f in pending.left]
        self.store.checkpoint(done)
        self._last_checkpoint = self.clock()

    def _report(self, done: int, total: int, path: str) -> None:
        """An "embed" event: the ETA is the chunks still to embed (estimated from the size
        of the files left) at the moving rate, not files at the average rate so far."""
        chunks = estimate_total(self._cut, self._cut_bytes, self._text_bytes)
        eta = self.pace.eta(chunks - self.report.chunks) if chunks else None
        self.on_progress(Progress("embed", done, total, self.report.chunks,
                                  self.pace.rate or 0.0, eta, path, chunks_total=chunks))
