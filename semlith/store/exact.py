"""The `exact.f32` sidecar: full-precision vectors for rescoring the head of a dense ranking.

Records are `[id u64][dim x f32]` (little-endian), appended in increasing id order. A
record is found from a sparse in-memory sample of ids (one per 4,096 records) by
interpolation, then bisection, with positional reads: only the candidates being
rescored are read. Records of deleted chunks stay until `compact`
rewrites the file with the live ones (temp file, fsync, rename).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from semlith.base.private import private_opener

SAMPLE_EVERY = 4096


def record_dtype(dim: int) -> np.dtype[np.void]:
    return np.dtype([("id", "<u8"), ("vec", "<f4", (dim,))])


def fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable (a no-op where directories cannot be opened)."""
    if os.name == "nt":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class ExactSidecar:
    """Append-only store of exact vectors keyed by chunk id."""

    def __init__(self, path: Path, dim: int) -> None:
        self.path = path
        self.dim = dim
        self.dtype = record_dtype(dim)
        self._fd: int | None = None
        self._ino: int | None = None
        self._sample = np.empty(0, "<u8")
        self._lock = threading.Lock()

    # -- writing (the caller holds the store's writer lock) --------------------------------

    def repair(self) -> int:
        """Drop a torn trailing record left by a killed writer; returns bytes removed."""
        if not self.path.exists():
            return 0
        size = self.path.stat().st_size
        torn = size % self.dtype.itemsize
        if torn:
            with open(self.path, "r+b") as handle:
                handle.truncate(size - torn)
                os.fsync(handle.fileno())
        return torn

    def last_id(self) -> int:
        """The id of the last record, or 0 when the file is empty."""
        count = self.count()
        if not count:
            return 0
        with open(self.path, "rb") as handle:
            handle.seek((count - 1) * self.dtype.itemsize)
            return int(np.frombuffer(handle.read(8), "<u8")[0])

    def count(self) -> int:
        try:
            return self.path.stat().st_size // self.dtype.itemsize
        except FileNotFoundError:
            return 0

    def append(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Append records; `ids` must be increasing and above every id already stored."""
        if len(ids) == 0:
            return
        ids = np.asarray(ids, dtype="<u8")
        if np.any(np.diff(ids.astype(np.int64)) <= 0) or int(ids[0]) <= self.last_id():
            raise ValueError(f"exact.f32 ids must increase; got {ids[:3].tolist()}... after "
                             f"{self.last_id()}")
        records = np.empty(len(ids), dtype=self.dtype)
        records["id"] = ids
        records["vec"] = vectors
        with open(self.path, "ab", opener=private_opener) as handle:
            handle.write(records.tobytes())
            handle.flush()
            os.fsync(handle.fileno())

    def compact(self, live_ids: Iterable[int]) -> int:
        """Rewrite the file keeping only `live_ids`; returns the number of records dropped."""
        live = np.fromiter(live_ids, dtype="<u8")
        live.sort()
        tmp = self.path.with_name(self.path.name + ".tmp")
        before = self.count()
        kept = 0
        with open(tmp, "wb", opener=private_opener) as out:
            for ids, vectors in self.scan():
                keep = np.isin(ids, live, assume_unique=True)
                records = np.empty(int(keep.sum()), dtype=self.dtype)
                records["id"], records["vec"] = ids[keep], vectors[keep]
                out.write(records.tobytes())
                kept += len(records)
            out.flush()
            os.fsync(out.fileno())
        self.close()  # Windows cannot replace a file that is open
        os.replace(tmp, self.path)
        fsync_dir(self.path.parent)
        return before - kept

    # -- reading ---------------------------------------------------------------------------
    #
    # Reads use pread, not a memory map: a map's page faults pull neighbouring pages into
    # the process (64 KiB fault-around each), so a day of queries would grow resident
    # memory to the whole file (measured: +150 MB after one query on a 140k store).

    def _handle(self) -> tuple[int, int, int] | None:
        """(fd, record count, file identity) of the current file, reopened when replaced."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        if self._fd is None or self._ino != st.st_ino:
            if self._fd is not None:
                os.close(self._fd)
            self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
            self._ino = st.st_ino
            self._sample = np.empty(0, "<u8")
        return self._fd, st.st_size // self.dtype.itemsize, st.st_ino

    def _read(self, fd: int, first: int, count: int = 1) -> np.ndarray:
        size = self.dtype.itemsize
        raw = _pread(fd, size * count, first * size)
        return np.frombuffer(raw[: len(raw) - len(raw) % size], dtype=self.dtype)

    def _refresh_sample(self, fd: int, count: int) -> np.ndarray:
        """Ids at every SAMPLE_EVERY-th record (a sparse index: 8 bytes per 4,096 records)."""
        have = len(self._sample)
        need = (count + SAMPLE_EVERY - 1) // SAMPLE_EVERY
        if need > have:
            more = [int(self._read(fd, i * SAMPLE_EVERY)["id"][0]) for i in range(have, need)]
            self._sample = np.concatenate([self._sample, np.array(more, "<u8")])
        return self._sample[:need]

    def fetch(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact vectors for `ids`: returns (found mask, vectors of the found ids, in order)."""
        ids = np.asarray(ids, dtype="<u8")
        found = np.zeros(len(ids), dtype=bool)
        out = np.empty((len(ids), self.dim), np.float32)
        with self._lock:
            handle = self._handle()
            if handle is None or handle[1] == 0 or len(ids) == 0:
                return found, out[:0]
            fd, count, _ = handle
            sample = self._refresh_sample(fd, count).astype(np.int64)
            last = int(self._read(fd, count - 1)["id"][0])
            # One vectorised interpolation guess per id, one read per guess; ids are dense
            # where nothing was deleted, so most guesses land. Misses are bisected below.
            want = ids.astype(np.int64)
            seg = np.searchsorted(sample, want, side="right") - 1
            valid = (seg >= 0) & (want <= last)
            seg = np.clip(seg, 0, len(sample) - 1)
            lo = seg * SAMPLE_EVERY
            hi = np.minimum(count, lo + SAMPLE_EVERY)
            id_lo = sample[seg]
            id_hi = np.where(seg + 1 < len(sample), sample[np.minimum(seg + 1, len(sample) - 1)],
                             last + 1)
            guess = lo + (want - id_lo) * (hi - lo) // np.maximum(1, id_hi - id_lo)
            guess = np.clip(guess, lo, hi - 1)
            size = self.dtype.itemsize
            raw = b"".join(_pread(fd, size, g * size) for g in guess.tolist())
            records = np.frombuffer(raw, dtype=self.dtype)
            hit = valid & (records["id"].astype(np.int64) == want)
            found[hit] = True
            out[hit] = records["vec"][hit]
            for n in np.flatnonzero(valid & ~hit).tolist():
                record = self._bisect(fd, int(lo[n]), int(hi[n]), int(want[n]))
                if record is not None:
                    found[n] = True
                    out[n] = record["vec"]
        return found, out[found]

    def _bisect(self, fd: int, lo: int, hi: int, wanted: int) -> np.void | None:
        """The record of `wanted` among records [lo, hi), by bisection."""
        while lo < hi:
            guess = (lo + hi) // 2
            record: np.void = self._read(fd, guess)[0]
            got = int(record["id"])
            if got == wanted:
                return record
            if got < wanted:
                lo = guess + 1
            else:
                hi = guess
        return None

    def scan(self, block: int = 16384) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Every record in blocks of (ids, vectors): for rebuilding shards and exact search."""
        count = self.count()
        if count == 0:
            return
        with open(self.path, "rb") as handle:
            for start in range(0, count, block):
                part = np.fromfile(handle, dtype=self.dtype, count=min(block, count - start))
                yield part["id"].copy(), np.ascontiguousarray(part["vec"], dtype=np.float32)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
            self._fd, self._ino = None, None


def _pread(fd: int, size: int, offset: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)  # Windows has no pread; callers hold the lock
    return os.read(fd, size)
