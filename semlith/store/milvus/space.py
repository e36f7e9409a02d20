"""A store's text vectors and keyword index in a Milvus collection (issue #16).

A Milvus-backed store is a local store folder whose `text` space is `MilvusSpace`: the
catalog still owns the walk, the content hashes and the crash order, while every chunk
is a row of a Milvus collection that holds its dense vector, a BM25 index of its words
and what a reader needs to show it (repo, path, lines, kind, symbol, language,
extension, text). One collection per model holds the chunks of many repositories, each
store writing only the rows of its own `repo`.

Rows are upserted under a primary key made from the chunk's identity (repo, path,
ordinal, xxh64 of its text), so a killed run that embeds a file again overwrites what
it wrote before instead of doubling it. The store's own chunk id (`local_id`) is a field:
removals are by (repo, local_id), which never touches a row a later upsert re-keyed.
An upsert that returned is acknowledged by Milvus (in its write-ahead log: the message
queue of a cluster, the lite engine's own log); the store commits a file's hash only
after that (`Store.checkpoint`). Reads use the consistency level of the target
(`Strong` unless the URI says otherwise): a search sees every acknowledged write.

Where the rows live (the `--backend` URI) is a `MilvusTarget` (store/milvus_target.py);
the client, the deadlines of its calls and what happens when the engine is down are in
store/milvus_client.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import xxhash

from semlith.errors import BackendError, ModelError
from semlith.store.milvus.check import has_deep_rows, local_ids, query_rows
from semlith.store.milvus.client import CONNECTIONS, Budget, Connection, Run
from semlith.store.milvus.dirs import CAPACITY as DIRS_CAPACITY
from semlith.store.milvus.dirs import DEEP, path_dirs
from semlith.store.milvus.dirs import ENTRY_MAX as DIRS_ENTRY_MAX
from semlith.store.milvus.target import (
    MilvusTarget,
    among,
    like_pattern,
    literal,
    milvus_filter,
)
from semlith.store.query import ChunkExport
from semlith.store.vectors import RESCORE_HEAD, checked
from semlith.types import ChunkPlace, ChunkRecord, Filters

VARCHAR_MAX = 65_535  # bytes: Milvus's VARCHAR limit
PATH_MAX = 4_096
BATCH_ROWS = 256  # rows per upsert: ~1 MB of text and vectors, far below gRPC's 64 MB
ID_BATCH = 1_000  # ids per delete / fetch expression


Rows = Callable[[Sequence[int]], list[ChunkExport]]
# A row's fields that make a ChunkRecord, in its order.
_RECORD = ("local_id", "path", "ordinal", "start_line", "end_line", "kind", "symbol", "text")
_PLACE = ("local_id", "path", "start_line", "end_line", "kind")


def _record(row: dict[str, Any]) -> ChunkRecord:
    """A chunk as a reader shows it, from a row's `_RECORD` fields."""
    return ChunkRecord(*(row[f] for f in _RECORD))


def _clip(text: str, limit: int = VARCHAR_MAX) -> str:
    """`text` cut to `limit` UTF-8 bytes at a character boundary."""
    data = text.encode("utf-8", "replace")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore")


def chunk_key(repo: str, path: str, ordinal: int, text: str) -> int:
    """The primary key of a chunk's row: its identity, as a positive int64."""
    digest = xxhash.xxh64_hexdigest(text.encode("utf-8", "replace"))
    raw = f"{repo}\0{path}\0{ordinal}\0{digest}".encode("utf-8", "replace")
    return xxhash.xxh64_intdigest(raw) & 0x7FFF_FFFF_FFFF_FFFF


class MilvusSpace:
    """The `VectorSpace` of a Milvus-backed store, plus its BM25 keyword list."""

    def __init__(self, target: MilvusTarget, *, model: str, dim: int, rows: Rows,
                 reader: bool = False) -> None:
        """`reader`: a mirror's space (`semlith attach`), which reads another machine's
        rows and never writes, repairs or creates anything."""
        self.target = target
        self.dim = dim
        self.model = model
        self.reader = reader
        self._rows = rows
        self._conn: Connection | None = CONNECTIONS.get(target)
        self.name = target.collection
        self.repo_filter = f"repo == {literal(target.repo)}"
        self._last = 0  # the largest id this instance added (ids only increase)
        # A store's first run after its creation claimed the repo: no row of it can exist,
        # so rows are inserted (an upsert checks each key against every segment: on the
        # lite engine 650 -> 150 rows/s by 550k rows). Any later write upserts.
        self.first_load = False
        self.has_dirs = True  # the collection's rows carry `dirs` (milvus_dirs.py)
        self._deep = False  # a row of this repo is too deep for `dirs` (found on open)
        try:
            self._ensure_collection()
        except BaseException:
            self.close()
            raise

    # -- the collection ------------------------------------------------------------------

    @property
    def description(self) -> str:
        return f"semlith chunks; model={self.model}; dim={self.dim}"

    def _ensure_collection(self) -> None:
        if self.call("has_collection", "has_collection", self.name):
            described = self.call("describe", "describe_collection", self.name)
            found = described.get("description", "")
            # A collection made before the field keeps its LIKE filters (issue #25).
            self.has_dirs = any(f.get("name") == "dirs" for f in described.get("fields", []))
            if found != self.description:
                raise ModelError(
                    f"Milvus collection {self.name!r} holds {found or 'other data'!r},"
                    f" not chunks of {self.model} ({self.dim} dimensions); name another"
                    " collection in --backend")
        elif self.reader:
            raise BackendError(f"Milvus at {self.target} has no collection {self.name!r}")
        else:
            self._create()
        self.call("load", "load_collection", self.name)
        self._deep = has_deep_rows(self)  # one scan at open: filters skip the LIKE then

    def _create(self) -> None:
        """Create the collection; another indexer creating it at the same time wins."""
        try:
            self.call("create", "create_collection", self.name, schema=self._schema(),
                       index_params=self._indexes(),
                       consistency_level=self.target.consistency)
        except BackendError:
            if not self.call("has_collection", "has_collection", self.name):
                raise
            self._ensure_collection()  # made by the other one: check it holds this model

    def _schema(self) -> Any:
        from pymilvus import DataType, Function, FunctionType, MilvusClient

        schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False,
                                            description=self.description)
        schema.add_field("pk", DataType.INT64, is_primary=True)
        schema.add_field("repo", DataType.VARCHAR, max_length=1024)
        schema.add_field("path", DataType.VARCHAR, max_length=PATH_MAX)
        schema.add_field("dirs", DataType.ARRAY, element_type=DataType.VARCHAR,
                         max_capacity=DIRS_CAPACITY, max_length=DIRS_ENTRY_MAX)
        schema.add_field("local_id", DataType.INT64)
        schema.add_field("ordinal", DataType.INT64)
        schema.add_field("start_line", DataType.INT64)
        schema.add_field("end_line", DataType.INT64)
        schema.add_field("lang", DataType.VARCHAR, max_length=128)
        schema.add_field("ext", DataType.VARCHAR, max_length=128)
        schema.add_field("kind", DataType.VARCHAR, max_length=128)
        schema.add_field("symbol", DataType.VARCHAR, max_length=1024)
        schema.add_field("content_hash", DataType.VARCHAR, max_length=16)
        schema.add_field("text", DataType.VARCHAR, max_length=VARCHAR_MAX)
        # What BM25 indexes: the text and its identifiers split (Milvus's standard
        # tokenizer splits snake_case, not camelCase), with English stems.
        schema.add_field("words", DataType.VARCHAR, max_length=VARCHAR_MAX,
                         enable_analyzer=True, analyzer_params={"type": "english"})
        schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        schema.add_field("dense", DataType.FLOAT_VECTOR, dim=self.dim)
        schema.add_function(Function(name="bm25", function_type=FunctionType.BM25,
                                     input_field_names=["words"],
                                     output_field_names=["sparse"]))
        return schema

    def _indexes(self) -> Any:
        from pymilvus import MilvusClient

        params = MilvusClient.prepare_index_params()
        # AUTOINDEX lets the engine pick (FLAT in the lite build, which takes only FLAT,
        # IVF_FLAT and AUTOINDEX; a graph index on a cluster); `?index=HNSW` names one.
        # Unit vectors: inner product is the cosine.
        params.add_index(field_name="dense", index_type=self.target.index, metric_type="IP")
        params.add_index(field_name="sparse", index_type="SPARSE_INVERTED_INDEX",
                         metric_type="BM25")
        return params

    def call(self, what: str, method: str, *args: Any, budget: Budget = Budget.WRITE,
              **kwargs: Any) -> Any:
        """The client's `method(*args, **kwargs)` within `budget` (a down engine fails
        at once after its first failure: store/milvus_client.py)."""
        def run(client: Any, timeouts: dict[str, Any]) -> Any:
            return getattr(client, method)(*args, **timeouts, **kwargs)
        return self._guarded(what, budget, run)

    def _guarded(self, what: str, budget: Budget, run: Run) -> Any:
        if self._conn is None:
            raise BackendError(f"the Milvus space of {self.target} is closed")
        return self._conn.call(self.target, f"{what} on {self.name!r}", budget, run)

    # -- writing (the store's one writer) ------------------------------------------------

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Upsert the rows of `ids`; returns once Milvus acknowledged every one."""
        self.require_writer()
        ids, vectors = checked(ids, vectors, self.dim)
        if len(ids) and (int(ids[0]) <= self._last or np.any(np.diff(ids.astype(np.int64)) <= 0)):
            raise ValueError("ids must increase and exceed every id added before")
        self._last = int(ids[-1]) if len(ids) else self._last
        by_id = {int(i): n for n, i in enumerate(ids)}
        exports = self._rows([int(i) for i in ids])  # a chunk deleted since has no row
        for start in range(0, len(exports), BATCH_ROWS):
            batch = [self._row(e, vectors[by_id[e.id]])
                     for e in exports[start:start + BATCH_ROWS]]
            if self.first_load:
                self.call("insert", "insert", self.name, batch)
            else:
                self.call("upsert", "upsert", self.name, batch)

    def _row(self, e: ChunkExport, vector: np.ndarray) -> dict[str, Any]:
        repo = self.target.repo
        return {"pk": chunk_key(repo, e.path, e.ordinal, e.text), "repo": repo,
                "path": _clip(e.path, PATH_MAX), **self._dirs(e.path), "local_id": e.id,
                "ordinal": e.ordinal,
                "start_line": e.start_line, "end_line": e.end_line, "lang": e.lang[:128],
                "ext": e.ext[:128], "kind": e.kind[:128], "symbol": _clip(e.symbol, 1024),
                "content_hash": xxhash.xxh64_hexdigest(e.text.encode("utf-8", "replace")),
                "text": _clip(e.text), "words": _clip(f"{e.idents}\n{e.text}"),
                "dense": vector.tolist()}

    def _dirs(self, path: str) -> dict[str, list[str]]:
        if not self.has_dirs:
            return {}
        runs = path_dirs(path)
        self._deep = self._deep or runs == [DEEP]
        return {"dirs": runs}

    def _filter(self, filters: Filters | None) -> str:
        return milvus_filter(self.target.repo, filters, dirs=self.has_dirs, deep=self._deep)

    def remove(self, ids: np.ndarray) -> None:
        """Delete this repo's rows of `ids` (acknowledged when this returns)."""
        if not len(ids):
            return
        self.require_writer()
        values = [int(i) for i in np.asarray(ids, dtype=np.uint64)]
        for batch in (values[at:at + ID_BATCH] for at in range(0, len(values), ID_BATCH)):
            self.call("delete", "delete", self.name,
                      filter=f"{self.repo_filter} and local_id in {batch}")

    @classmethod
    def claim_repo(cls, target: MilvusTarget, *, model: str, dim: int) -> None:
        """Delete every row of `target.repo` (a new store owns its repo's rows), making
        the collection if there is none."""
        space = cls(target, model=model, dim=dim, rows=lambda ids: [])
        try:
            space.call("delete", "delete", space.name, filter=space.repo_filter)
        finally:
            space.close()

    def durable(self) -> None:
        """Nothing to do: an upsert or delete that returned is in Milvus's log."""

    def recover(self, live_ids: Callable[[], np.ndarray],
                clean: bool) -> tuple[dict[str, int], list[int]]:
        """After an unclean close: delete this repo's rows whose chunk the catalog no
        longer has, and report live chunks without a row (their files are redone)."""
        if clean or self.reader:  # a mirror's catalog holds no chunks: nothing to compare
            return {}, []
        live = {int(i) for i in live_ids()}
        held = set(local_ids(self))
        extra = sorted(held - live)
        if extra:
            self.remove(np.asarray(extra, dtype=np.uint64))
        return {"milvus_rows_removed": len(extra)}, sorted(live - held)

    def maybe_compact(self, live_count: Callable[[int], int],
                      live_ids: Callable[[], Iterable[int]]) -> None:
        """Nothing to do: Milvus compacts deleted rows itself."""

    # -- reading -------------------------------------------------------------------------

    def require_writer(self) -> None:
        if self.reader:
            raise PermissionError(f"repo {self.target.repo!r} is read from {self.target}; "
                                  "only its own indexer writes it")

    @staticmethod
    def collection_model(target: MilvusTarget) -> tuple[str, int]:
        """(model, dim) of the semlith collection `target` names (for `semlith attach`)."""
        connection = CONNECTIONS.get(target)

        def ask(method: str) -> Any:
            return connection.call(target, f"{method} of {target.collection!r}", Budget.WRITE,
                                   lambda c, t: getattr(c, method)(target.collection, **t))
        try:
            if not ask("has_collection"):
                raise BackendError(f"Milvus at {target} has no collection "
                                   f"{target.collection!r}")
            found = ask("describe_collection")
        finally:
            CONNECTIONS.release(connection)
        parsed = re.fullmatch(r"semlith chunks; model=(.+); dim=(\d+)",
                              str(found.get("description", "")))
        if parsed is None:
            raise BackendError(f"{target.collection!r} at {target} is not a semlith collection")
        return parsed.group(1), int(parsed.group(2))

    def records(self, ids: Sequence[int]) -> dict[int, ChunkRecord]:
        """The chunks among `ids` as a reader shows them, from this repo's rows."""
        return {int(r["local_id"]): _record(r) for r in self._by_id(ids, _RECORD)}

    def places(self, ids: Sequence[int]) -> dict[int, ChunkPlace]:
        """Where the chunks among `ids` are, from this repo's rows (their text unread)."""
        return {int(r["local_id"]): ChunkPlace(*(r[f] for f in _PLACE))
                for r in self._by_id(ids, _PLACE)}

    def _by_id(self, ids: Sequence[int], fields: tuple[str, ...],
               budget: Budget = Budget.READ) -> Iterator[dict[str, Any]]:
        values = [int(i) for i in ids]
        for start in range(0, len(values), ID_BATCH):
            yield from query_rows(self, budget=budget, output_fields=list(fields),
                                  filter=f"{self.repo_filter} and local_id in "
                                         f"{values[start:start + ID_BATCH]}")

    def file_records(self, path: str, limit: int = 1000) -> list[ChunkRecord]:
        """The chunks of one file, in order (what a mirror reads back)."""
        rows = query_rows(self, budget=Budget.READ,
                           filter=f"{self.repo_filter} and path == {literal(path)}",
                           output_fields=list(_RECORD), limit=limit)
        return sorted((_record(r) for r in rows),
                      key=lambda r: (r.start_line, r.ordinal))

    def definitions(self, name: str, limit: int, filters: Filters | None = None
                    ) -> list[ChunkRecord]:
        """Chunks whose symbol is `name` or ends in `.name` / `::name` (a mirror's
        symbol list: the catalog's definitions table is on the indexer's machine)."""
        suffixes = " or ".join(f"symbol like {literal(sep + like_pattern(name))}"
                               for sep in ("%.", "%::"))
        expr = (f"{self._filter(filters)} and (symbol == {literal(name)}"
                f" or {suffixes})")
        rows = query_rows(self, filter=expr, budget=Budget.READ,
                           output_fields=list(_RECORD), limit=limit)
        return [_record(r) for r in rows]

    def fetch(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ids = np.asarray(ids, dtype=np.uint64)
        values = [int(i) for i in ids]
        found: dict[int, list[float]] = {int(r["local_id"]): r["dense"] for r in self._by_id(
            values, ("local_id", "dense"), Budget.WRITE)}
        mask = np.array([v in found for v in values], dtype=bool)
        vectors = np.array([found[v] for v in values if v in found], dtype=np.float32)
        return mask, vectors.reshape(-1, self.dim)

    def search(self, query: np.ndarray, k: int, *, allowlist: np.ndarray | None = None,
               rescore: int = RESCORE_HEAD, filters: Filters | None = None
               ) -> list[tuple[int, float]]:
        """The top `k` (local id, inner product) of this repo's rows, within `filters`."""
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise ValueError(f"query has dimension {query.shape[0]}, store has {self.dim}")
        expr = self._filter(filters) + among(allowlist)
        return self._hits(self.call("search", "search", self.name, budget=Budget.READ,
                                     data=[query.tolist()], anns_field="dense",
                                     limit=k, filter=expr,
                                     output_fields=["local_id"],
                                     search_params={"metric_type": "IP"}))

    def keyword(self, text: str, k: int, filters: Filters | None = None, *,
                allowlist: np.ndarray | None = None) -> list[tuple[int, float]]:
        """BM25 top `k` (local id, score) of this repo's rows for `text`, within `filters`
        and, given, the chunk ids of `allowlist`."""
        if not text.strip():
            return []
        expr = self._filter(filters) + among(allowlist)
        return self._hits(self.call("search", "search", self.name, budget=Budget.READ,
                                     data=[text], anns_field="sparse", limit=k, filter=expr,
                                     output_fields=["local_id"],
                                     search_params={"metric_type": "BM25"}))

    @staticmethod
    def _hits(result: Any) -> list[tuple[int, float]]:
        return [(int(h["entity"]["local_id"]), float(h["distance"])) for h in result[0]]

    # -- reporting -----------------------------------------------------------------------

    def count(self, expr: str) -> int:
        rows = self.call("count", "query", self.name, filter=expr, budget=Budget.READ,
                          output_fields=["count(*)"])
        return int(rows[0]["count(*)"]) if rows else 0

    def stats(self) -> dict[str, Any]:
        return {"exact_records": self.count(self.repo_filter),
                "backend": str(self.target), "collection": self.name,
                "repo": self.target.repo, "collection_rows": self.count("")}

    def close(self) -> None:
        connection, self._conn = self._conn, None
        if connection is not None:
            CONNECTIONS.release(connection)


