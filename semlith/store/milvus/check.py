"""A Milvus space's rows read back and checked against the catalog (issue #25).

`query_rows` is every query of a space; `local_ids` lists a repo's rows (the recovery
after an unclean close compares them with the catalog); `verify_rows` is `semlith index
--verify` for a Milvus space; `has_deep_rows` whether `--path` needs its LIKE fallback.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import numpy as np

from semlith.errors import BackendError
from semlith.store.milvus.client import Budget
from semlith.store.milvus.dirs import DEEP
from semlith.store.milvus.target import literal

PAGE = 1_000  # rows per page of `local_ids`


class Rows(Protocol):
    """A repo's rows in one collection, as a check reads and repairs them
    (`MilvusSpace` is one; the space imports this module, not the other way round)."""

    name: str  # the collection
    has_dirs: bool
    repo_filter: str  # the expression that selects the repo's rows

    def call(self, what: str, method: str, *args: Any, budget: Budget = ...,
             **kwargs: Any) -> Any: ...

    def count(self, expr: str) -> int: ...

    def require_writer(self) -> None: ...

    def remove(self, ids: np.ndarray) -> None: ...


def query_rows(space: Rows, *, budget: Budget = Budget.WRITE, **kwargs: Any
               ) -> list[dict[str, Any]]:
    """A query's rows. One that matches nothing fails in pymilvus 2.5.18 on a
    collection with an ARRAY field (`dirs`: "Unsupported data type: 0", it cannot
    parse the empty array column milvus-lite sends): that is an empty answer."""
    try:
        return list(space.call("query", "query", space.name, budget=budget, **kwargs))
    except BackendError as exc:
        if space.has_dirs and "Unsupported data type: 0" in str(exc):
            return []
        raise


def has_deep_rows(space: Rows) -> bool:
    """Whether a row of the repo is too deep for `dirs` (marked DEEP)."""
    return space.has_dirs and space.count(
        f"{space.repo_filter} and array_contains(dirs, {literal(DEEP)})") > 0


def local_ids(space: Rows) -> Iterator[int]:
    """The repo's rows' local ids (one per row: a doubled chunk twice), page by page.

    Paged by primary key, as pymilvus's own query_iterator pages (a query with a limit
    returns the smallest keys first); that iterator fails on a collection with the
    `dirs` ARRAY field ("Unsupported data type: 0", pymilvus 2.5.18 on milvus-lite).
    """
    last, page = -1, PAGE
    while True:
        rows = query_rows(space, limit=page, filter=f"{space.repo_filter} and pk > {last}",
                            output_fields=["pk", "local_id"])
        yield from (int(r["local_id"]) for r in rows)
        if len(rows) < page:
            return
        last = max(int(r["pk"]) for r in rows)


def verify_rows(space: Rows, live_ids: Callable[[], np.ndarray]
                ) -> tuple[dict[str, int], list[int]]:
    """Check the repo's rows against the catalog's committed chunks and repair: rows of
    no live chunk are deleted, a chunk held by two rows loses both, and the live chunks
    left without a row are returned (their files are embedded again)."""
    space.require_writer()
    seen = Counter(local_ids(space))
    live = {int(i) for i in live_ids()}
    extra = sorted(set(seen) - live)
    doubled = sorted(i for i in live if seen.get(i, 0) > 1)
    if extra or doubled:
        space.remove(np.asarray(extra + doubled, dtype=np.uint64))
    missing = sorted(live - set(seen)) + doubled
    return {"milvus_rows_checked": sum(seen.values()),
            "milvus_rows_removed": len(extra) + sum(seen[i] for i in doubled),
            "milvus_rows_missing": len(missing)}, sorted(missing)
