"""The embed phase of an index run: every changed file read first, then embedded.

Two passes (issue #43). The read pass cuts each file (`cutting.cut`) and writes its rows
to SQLite at once, so every file of the run is keyword- and symbol-searchable before the
first chunk is embedded: on a 10,000-file tree, within seconds rather than after the
hours the model takes for everything before it. The chunks' embedding texts wait on
disk (`Spool`), not in memory. The embed pass embeds them in the same order (source
first) in batches sized by `pace.Pace` to take a few seconds each, however slow the
machine, and a checkpoint follows each batch: a file's hash is committed only when its
last vector is durable (the crash protocol, store/store.py). A run killed often still
commits its work, and leaves its unfinished files pending for the next run.

With a time budget, the read pass may take half of it and the embed pass the rest, so
that a run called again and again (an agent's `index` tool) always embeds something.
"""

from __future__ import annotations

import struct
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from semlith.base.languages import catalog_kind, language_of
from semlith.base.text import split_identifiers
from semlith.embed.text import Embedder, embed_counting
from semlith.index.cutting import Cut, cut, read_walked
from semlith.index.edges import write_file_edges
from semlith.index.images import ImageIndexer, ImageModel
from semlith.index.pace import Pace
from semlith.index.scan import FileState
from semlith.ingest.chunk import MAX_CHUNKS_PER_FILE
from semlith.ingest.cost import file_allowance
from semlith.ingest.definitions import chunking_fingerprint
from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.generated import skip_record
from semlith.ingest.images import is_image
from semlith.ingest.reading import content_hash
from semlith.ingest.walk import Candidate, Skipped, SkipReason
from semlith.store import ChunkRow, Store
from semlith.store.checks import count_vectors
from semlith.store.rows import FileRecord, SkipRecord
from semlith.types import IndexReport, Progress
from semlith.types.skips import count_skips

# With a time budget, the read pass stops at this part of it (the embed pass has the rest).
READ_SHARE = 0.5


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


class Spool:
    """The embedding texts of chunks written and not yet embedded, in the order written:
    `(chunk id, file id, text)` records in an unnamed temporary file beside the store
    (a first run of 100k chunks would hold ~100 MB of them in memory)."""

    _HEAD = struct.Struct("<QQI")

    def __init__(self, folder: Path) -> None:
        # closed by close(), which the run calls in a finally
        self._file = tempfile.TemporaryFile(  # noqa: SIM115
            dir=folder, prefix="embed-", suffix=".spool")
        self._end = self._at = 0
        self.waiting = 0  # records written and not yet taken

    def add(self, ids: list[int], owner: int, texts: list[str]) -> None:
        self._file.seek(self._end)
        for chunk_id, text in zip(ids, texts, strict=True):
            data = text.encode("utf-8", "surrogatepass")
            self._file.write(self._HEAD.pack(chunk_id, owner, len(data)))
            self._file.write(data)
        self._end = self._file.tell()
        self.waiting += len(ids)

    def take(self, n: int) -> tuple[list[int], list[int], list[str]]:
        """The next `n` records (fewer at the end) as ids, owners and texts."""
        ids: list[int] = []
        owners: list[int] = []
        texts: list[str] = []
        self._file.seek(self._at)
        for _ in range(min(n, self.waiting)):
            chunk_id, owner, size = self._HEAD.unpack(self._file.read(self._HEAD.size))
            ids.append(chunk_id)
            owners.append(owner)
            texts.append(self._file.read(size).decode("utf-8", "surrogatepass"))
        self._at = self._file.tell()
        self.waiting -= len(ids)
        return ids, owners, texts

    def close(self) -> None:
        self._file.close()


@dataclass(slots=True)
class _Pending:
    """Files whose rows are written and whose vectors are not all durable yet."""

    file_ids: list[int] = field(default_factory=list)
    digests: dict[int, str] = field(default_factory=dict)
    left: dict[int, int] = field(default_factory=dict)  # file id -> chunks still to embed


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
        self._skipped: list[str] = []  # why files could not be read or were refused now
        self._cut = self._cached = 0  # chunks written so far; vectors the cache gave
        self._committed = 0  # files of this run whose every vector is durable
        self._allowance = file_allowance(store.settings.index_memory_mb << 20)
        self._spool: Spool | None = None

    def run(self, todo: list[Todo], start: float, budget: float | None) -> None:
        """Read `todo` in order, then embed what was read, until done, `budget` seconds
        after `start` (the read pass stops at READ_SHARE of it) or stopped."""
        report = self.report
        images = ImageIndexer(self.store, self._image_model, self._put_image)
        self._spool = Spool(self.store.folder)
        try:
            read_until = None if budget is None else start + budget * READ_SHARE
            read = self._read_pass(todo, images, read_until)
            report.pending = len(todo) - read
            images.flush()
            self._embed_pass(read, None if budget is None else start + budget)
        finally:
            self._spool.close()
            self._spool = None
        report.cached = count_vectors(self.store, self._cached, report.chunks - self._cached)
        report.chunks += images.embedded
        self._checkpoint()
        count_skips(report, self._skipped)
        report.truncated = self._truncated

    def _read_pass(self, todo: list[Todo], images: ImageIndexer, until: float | None) -> int:
        """Cut and write each file (images are embedded as they come); how many were
        read before `until` (a clock value) or a stop."""
        report = self.report
        for n, item in enumerate(todo):
            if (until is not None and self.clock() > until) or self.stopped():
                return n
            if is_image(item.cand.rel):
                report.indexed += self._add_image(images, item)
            elif (done := self._cut_file(item)) is not None:
                self._write_rows(item, done)
                self._cut += len(done.chunked.chunks)
                report.indexed += 1
            self._report("read", n + 1, len(todo), item.cand.rel)
        return len(todo)

    def _embed_pass(self, files: int, until: float | None) -> None:
        """Embed the spooled chunks in batches until none wait, `until` or a stop; the
        files left with chunks to embed keep an empty hash (the next run redoes them)."""
        report, spool = self.report, self._spool
        assert spool is not None
        if spool.waiting:  # the model first (a "model" event), then what is to embed
            self._embedder()
            self._report("embed", self._committed, files, "")
        while spool.waiting:
            if (until is not None and self.clock() > until) or self.stopped():
                self._checkpoint()  # files with nothing to embed are done
                left = len(self._pending.left)
                report.indexed -= left
                report.pending += left
                return
            report.chunks += self._embed_batch()
            self._report("embed", self._committed, files, "")

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
        self._skipped.append(reason)

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
        assert self._spool is not None
        self._spool.add(ids, file_id, [c.embedding_text() for c in chunks])

    def _embed_batch(self) -> int:
        """Embed the next batch of spooled chunks, store their vectors, checkpoint."""
        assert self._spool is not None
        embedder = self._embedder()  # loaded before the clock starts: loading is not speed
        ids, owners, texts = self._spool.take(self.pace.batch())
        started = self.clock()
        vectors, cached = embed_counting(embedder, texts)
        self._cached += cached
        self.pace.record(len(ids), self.clock() - started)
        self.store.add_vectors(ids, vectors)
        for owner in owners:
            self._pending.left[owner] -= 1
        self._checkpoint()
        return len(ids)

    def _checkpoint(self) -> None:
        """Commit the hashes of files whose every chunk now has a durable vector."""
        pending = self._pending
        done = [(f, pending.digests.pop(f)) for f in pending.file_ids if pending.left[f] == 0]
        for file_id, _ in done:
            del pending.left[file_id]
        pending.file_ids = [f for f in pending.file_ids if f in pending.left]
        self.store.checkpoint(done)
        self._committed += len(done)

    def _report(self, phase: str, done: int, total: int, path: str) -> None:
        """A "read" event (files read of all, the chunks they made) or an "embed" event
        (files whose vectors are all durable, of those read; chunks embedded of all of
        theirs); the ETA is the chunks still to embed at the moving rate."""
        left = self._cut - self.report.chunks
        eta = self.pace.eta(left) if phase == "embed" else None
        self.on_progress(Progress(phase, done, total, self.report.chunks,
                                  self.pace.rate or 0.0, eta, path, chunks_total=self._cut))
