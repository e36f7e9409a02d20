"""The vector side of a store: the `VectorSpace` protocol and `LocalSpace`, its default.

The catalog knows which chunks exist; a vector space holds one vector per chunk id and
answers "the k nearest". `Store` calls only the protocol, so another engine (an image
space, a vector server) is a class that meets it, not a change to the store.

`LocalSpace` is two things in the store folder: `exact.f32`, the exact vectors in an
append-only log (durable when added: the truth that rescoring and rebuilding read), and
`shards/`, 4-bit TurboQuant shards that searches scan (durable at `durable()`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from semlith.base.settings import Settings
from semlith.store.exact import ExactSidecar
from semlith.store.folder import EXACT_NAME, SHARDS_DIR, SPACES_DIR
from semlith.store.rows import SpaceRecord
from semlith.store.shards import SHARD_SPAN, ShardSet
from semlith.store.ties import REACH

# Candidates of the 4-bit scan rescored with exact vectors: recall@10 1.000 where the 4-bit
# codes alone get 0.90-0.93 (docs/performance.md, "scan").
TEXT = "text"  # the chunks' space (Store.vectors)
RESCORE_HEAD = 100
# Compact exact.f32 once dead records pass this share of the file (and this many records).
COMPACT_RATIO = 0.25
COMPACT_MIN = 4096


class VectorSpace(Protocol):
    """What a store needs from a vector engine.

    Ids are chunk ids (uint64, increasing, never reused); vectors are float32 rows of unit
    length, `dim` wide, so a dot product is the cosine. Mutations come from the store's
    one writer; `fetch` and `search` may run on many threads at once, and in reader
    processes while the writer works.
    """

    dim: int

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Hold `vectors` (shape `(len(ids), dim)`) under `ids`.

        `ids` increase and exceed every id added before. Durable in the space's own log
        when this returns, so `recover` can restore them after a crash. Raises ValueError
        for a wrong shape or order.
        """
        ...

    def remove(self, ids: np.ndarray) -> None:
        """Stop returning `ids` from `search`; ids the space does not hold are ignored.

        Durable at the next `durable()`. `fetch` may still find them until the space
        compacts: the store never fetches a removed id.
        """
        ...

    def fetch(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The exact vectors of `ids`: (found mask over `ids`, the found ones' vectors in
        order). For copying a file's vectors and for rescoring."""
        ...

    def search(self, query: np.ndarray, k: int, *, allowlist: np.ndarray | None = None,
               rescore: int = RESCORE_HEAD) -> list[tuple[int, float]]:
        """The top `k` (id, cosine) for a unit `query`, best first, with exact scores.

        `allowlist` restricts the answer to those ids (ids holding no vector are ignored).
        `rescore`: how many candidates an approximate engine ranks exactly (at least `k`).
        Raises ValueError for a query of another dimension.
        """
        ...

    def durable(self) -> None:
        """Make every `add` and `remove` so far survive a crash (the store's checkpoint
        calls this before it commits the files those vectors belong to)."""
        ...

    def recover(self, live_ids: Callable[[], np.ndarray],
                clean: bool) -> tuple[dict[str, int], list[int]]:
        """Make the space consistent after whatever the last writer left behind.

        Called once by a writable open, before anything else. `clean` is False when the
        last writer did not close: the space then checks that it can answer for every id
        of `live_ids()` (the committed chunk ids, increasing; O(chunks), so call it only
        then) and repairs what it can from its own log.

        Returns the counts shown as `stats()["recovered"]` and the live ids whose vector
        is lost (the store sends their files back to pending, to be embedded again).
        """
        ...

    def maybe_compact(self, live_count: Callable[[int], int],
                      live_ids: Callable[[], Iterable[int]]) -> None:
        """Reclaim the room of removed vectors if worth it (after every checkpoint).

        `live_count(upto)`: how many chunk ids up to `upto` still exist; `live_ids()`:
        every existing chunk id, increasing. Both query the catalog: call them only when
        the space's own numbers say compaction may be due.
        """
        ...

    def stats(self) -> dict[str, Any]:
        """`exact_records` (vectors held, removed ones included until compacted) and the
        engine's own numbers, shown as `stats()["shards"]`."""
        ...

    def close(self) -> None:
        """Let go of files and connections; a second call does nothing. Makes nothing
        durable: `durable()` does."""
        ...


def checked(ids: np.ndarray, vectors: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """`ids` as uint64 and `vectors` as contiguous float32; ValueError for a wrong shape."""
    ids = np.asarray(ids, dtype=np.uint64)
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if vectors.shape != (len(ids), dim):
        raise ValueError(f"expected vectors of shape ({len(ids)}, {dim}), got {vectors.shape}")
    return ids, vectors


class LocalSpace:
    """`exact.f32` and 4-bit shards in a store folder (the default `VectorSpace`).

    `perf=False` (`SEMLITH_PERF=off`) answers every search by an exact brute-force scan
    of `exact.f32`: slow, the reference answer.
    """

    def __init__(self, folder: Path, dim: int, budget_bytes: int, perf: bool) -> None:
        self.dim = dim
        self.perf = perf
        self.exact = ExactSidecar(folder / EXACT_NAME, dim)
        self.shards = ShardSet(folder / SHARDS_DIR, dim, budget_bytes)

    # -- writing (the caller holds the store's writer lock) ------------------------------

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Append to `exact.f32` (fsync), then to the in-memory shards."""
        ids, vectors = checked(ids, vectors, self.dim)
        self.exact.append(ids, vectors)
        self.shards.add(ids, vectors)

    def remove(self, ids: np.ndarray) -> None:
        """Remove from the shards; `exact.f32` keeps the records until `maybe_compact`."""
        self.shards.remove(np.asarray(ids, dtype=np.uint64))

    def durable(self) -> None:
        self.shards.flush()

    def recover(self, live_ids: Callable[[], np.ndarray],
                clean: bool) -> tuple[dict[str, int], list[int]]:
        """Delete temp files, truncate a torn `exact.f32` tail and, unless `clean`,
        rebuild from `exact.f32` every shard that fails to load or misses a live id."""
        counts = {"temp_files": len(self.shards.remove_temp_files()),
                  "torn_bytes": self.exact.repair()}
        tmp = self.exact.path.with_name(self.exact.path.name + ".tmp")
        if tmp.exists():
            tmp.unlink()
            counts["temp_files"] += 1
        lost: list[int] = []
        if not clean:
            counts["rebuilt_shards"], lost = self._verify_shards(live_ids())
        return counts, lost

    def _verify_shards(self, live: np.ndarray) -> tuple[int, list[int]]:
        """Rebuild shards that fail to load or miss a live vector: (how many, ids lost).

        A live id in neither a shard nor `exact.f32` is lost (the disk lost it).
        """
        wanted = {int(f) for f in np.unique((live // SHARD_SPAN) * SHARD_SPAN)}
        listing = self.shards.listing()
        rebuilt = 0
        for first in sorted(wanted | set(listing)):
            expect = live[(live >= first) & (live < first + SHARD_SPAN)]
            if first in listing and self.shards.holds_all(first, expect):
                continue
            self.shards.rebuild(first, self.exact.scan, expect)
            rebuilt += 1
        if not rebuilt:
            return 0, []
        self.shards.flush()
        found, _ = self.exact.fetch(live)
        return rebuilt, [int(i) for i in live[~found]]

    def maybe_compact(self, live_count: Callable[[int], int],
                      live_ids: Callable[[], Iterable[int]]) -> None:
        records = self.exact.count()
        if records < COMPACT_MIN:
            return
        dead = records - live_count(self.exact.last_id())
        if dead >= COMPACT_MIN and dead >= COMPACT_RATIO * records:
            self.exact.compact(live_ids())

    # -- reading -------------------------------------------------------------------------

    def fetch(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.exact.fetch(ids)

    @property
    def exhaustive(self) -> bool:
        """Whether searches scan `exact.f32` instead of the shards (`perf=False`, or a
        shard that could not be read): the removals of an unreadable shard are unknown
        here, so the store checks what this answers against the catalog."""
        return not self.perf or self.shards.degraded

    def search(self, query: np.ndarray, k: int, *, allowlist: np.ndarray | None = None,
               rescore: int = RESCORE_HEAD) -> list[tuple[int, float]]:
        """4-bit scan of the shards for the best `max(k, rescore)`, rescored exactly.

        An unreadable shard (corrupt on disk) or `perf=False` makes it an exact scan of
        `exact.f32` instead, which still holds removed vectors until compaction: the
        shards say which ids were removed (an unreadable shard's ids count as held).
        """
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise ValueError(f"query has dimension {query.shape[0]}, store has {self.dim}")
        if not self.perf:
            return self._exact_scan(query, k, allowlist)
        try:
            approx_scores, ids = self._scan(query, max(k, rescore), allowlist)
        except (ValueError, OSError) as exc:  # a shard corrupt on disk: answer exactly instead
            self.shards.note_unreadable(str(exc))
            return self._exact_scan(query, k, allowlist)
        found, vectors = self.exact.fetch(ids)
        scores = approx_scores.astype(np.float32)
        if found.any():
            scores[found] = vectors @ query
        order = np.argsort(-scores, kind="stable")[:k]
        return [(int(ids[i]), float(scores[i])) for i in order]

    def _scan(self, query: np.ndarray, n: int,
              allowlist: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """The 4-bit top `n`, and every chunk whose code scores as the n-th does: copies
        of a chunk have one code, and turbovec breaks ties by the order the vectors were
        added in, which differs between a fresh store and a resumed one (issue #47). Past
        ties.REACH, its order decides."""
        depth = n + 1
        scores, ids = self.shards.search(query, depth, allowlist)
        while n and len(ids) >= depth and scores[n - 1] == scores[-1] and depth < REACH:
            depth = min(depth * 4, REACH)
            scores, ids = self.shards.search(query, depth, allowlist)
        if not n or len(ids) <= n:
            return scores[:n], ids[:n]
        end = int(np.searchsorted(-scores, -scores[n - 1], side="right"))
        if end == len(ids) and len(ids) >= depth:
            end = n  # the run goes on past REACH
        return scores[:end], ids[:end]

    def _exact_scan(self, query: np.ndarray, k: int,
                    allowlist: np.ndarray | None) -> list[tuple[int, float]]:
        """Every record of `exact.f32` scored; the best `k` whose shard still holds them.

        The sidecar keeps removed vectors until it is compacted: 16 of a dense top-30
        were dead ids before the shards were asked (issue #26)."""
        all_ids, all_scores = [], []
        allow = None if allowlist is None else np.asarray(allowlist, np.uint64)
        for ids, vectors in self.exact.scan():
            scores = vectors @ query
            if allow is not None:
                keep = np.isin(ids, allow)
                ids, scores = ids[keep], scores[keep]
            all_ids.append(ids)
            all_scores.append(scores)
        if not all_ids:
            return []
        ids, scores = np.concatenate(all_ids), np.concatenate(all_scores)
        order = np.lexsort((ids, -scores))  # ties by id, as a fresh store would order them
        out: list[tuple[int, float]] = []
        for start in range(0, len(order), max(k, 64)):
            part = order[start:start + max(k, 64)]
            held = self.shards.held(ids[part])
            out += [(int(ids[i]), float(scores[i])) for i in part[held]]
            if len(out) >= k:
                break
        return out[:k]

    # -- reporting -----------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        return {**asdict(self.shards.stats()), "exact_records": self.exact.count()}

    def close(self) -> None:
        self.exact.close()


def local_space(folder: Path, record: SpaceRecord, settings: Settings) -> LocalSpace:
    """A store's space other than text, in `spaces/<name>/` of its folder."""
    return LocalSpace(folder / SPACES_DIR / record.name, record.dim,
                      settings.index_memory_mb << 20, settings.perf)


def local_spaces(folder: Path, dim: int, records: Iterable[SpaceRecord],
                 settings: Settings) -> dict[str, VectorSpace]:
    """The spaces of a local store, by name: its text space and each other it records."""
    spaces: dict[str, VectorSpace] = {
        TEXT: LocalSpace(folder, dim, settings.index_memory_mb << 20, settings.perf)}
    for record in records:
        if record.name != TEXT:
            spaces[record.name] = local_space(folder, record, settings)
    return spaces


def is_exhaustive(vectors: VectorSpace) -> bool:
    """Whether a space answers by scanning every record, removed ones included."""
    return isinstance(vectors, LocalSpace) and vectors.exhaustive
