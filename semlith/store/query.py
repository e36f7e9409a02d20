"""The read queries of search and lookups: filters as SQL, selections, keyword matches,
definitions by name. Only `store/` speaks SQL; search and symbols call these.

A `Selection` is the filters compiled once into one SQL condition over `files f`; every
list of a query (keyword, dense allowlist, definitions) applies the same one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from semlith.base.languages import resolve_language
from semlith.store.catalog import Catalog, glob_escape
from semlith.store.ties import in_place
from semlith.types import ChunkRecord, Definition, Filters

if TYPE_CHECKING:  # selected_ids' only: a grep or a read imports no numpy (issue #45)
    import numpy as np


@dataclass(frozen=True, slots=True)
class Selection:
    """Filters as one SQL condition over `files f`, with its parameters."""

    where: str = "1"
    params: tuple[str, ...] = ()
    filters: Filters = Filters()  # what it was compiled from (a Milvus store compiles its own)

    @property
    def everything(self) -> bool:
        return self.where == "1"

    @classmethod
    def of(cls, filters: Filters) -> Selection:
        clauses: list[str] = []
        params: list[str] = []
        inc, exc = split_negated(filters.paths)
        for group, negate in ((inc, False), (exc, True)):
            if group:
                globs = [g for p in group for g in path_globs(p)]
                any_of = " OR ".join("f.path GLOB ?" for _ in globs)
                clauses.append(f"{'NOT ' if negate else ''}({any_of})")
                params.extend(globs)
        inc, exc = split_negated(filters.exts)
        for group, op in ((inc, "IN"), (exc, "NOT IN")):
            if group:
                exts = ["." + e.lower().lstrip(".") for e in group]
                clauses.append(f"f.ext {op} ({','.join('?' * len(exts))})")
                params.extend(exts)
        inc, exc = split_negated(filters.langs)
        for group, op in ((inc, "IN"), (exc, "NOT IN")):
            if group:
                names = [resolve_language(v).name for v in group]
                clauses.append(f"f.lang {op} ({','.join('?' * len(names))})")
                params.extend(names)
        return cls(" AND ".join(clauses) or "1", tuple(params), filters)


EVERYTHING = Selection()


def split_negated(values: Sequence[str]) -> tuple[list[str], list[str]]:
    include = [v for v in values if not v.startswith("!")]
    return include, [v[1:] for v in values if v.startswith("!")]


def path_globs(pattern: str) -> list[str]:
    """GLOB patterns for one `--path`: relative ones match anywhere, folders match inside."""
    p = pattern.strip().replace("\\", "/").replace("**/", "*").replace("**", "*")
    anchored = p.startswith("/")
    p = p.lstrip("/").removeprefix("./").rstrip("/")
    variants = [p] if any(ch in p for ch in "*?[") else [p, f"{p}/*"]
    if p.endswith("/*") or not p:
        variants = [p or "*"]
    return variants if anchored else variants + [f"*/{v}" for v in variants]


# Files first (CROSS JOIN fixes SQLite's order): the filter is on files, and their chunks
# are an index range. Left to itself SQLite scanned every chunk and looked its file up:
# 54.6 ms instead of 3.7 ms for 2,000 selected chunks of 100,000 (docs/performance.md).
_SELECTED = ("FROM files f CROSS JOIN chunks c ON c.file_id = f.id"
             " WHERE f.hash != '' AND ({})")


def count_selected(catalog: Catalog, sel: Selection) -> int:
    """Committed chunks the selection keeps."""
    return int(catalog.db.execute("SELECT COUNT(*) " + _SELECTED.format(sel.where),
                                  sel.params).fetchone()[0])


def selected_ids(catalog: Catalog, sel: Selection) -> np.ndarray:
    """Ids of the committed chunks the selection keeps (a dense-scan allowlist)."""
    import numpy as np

    cur = catalog.db.execute("SELECT c.id " + _SELECTED.format(sel.where), sel.params)
    return np.fromiter((r[0] for r in cur), dtype=np.uint64)


def selected_paths(catalog: Catalog, sel: Selection) -> list[str]:
    """The paths of the files the selection keeps, pending ones too, in path order."""
    return [r[0] for r in catalog.db.execute(
        f"SELECT f.path FROM files f WHERE ({sel.where}) ORDER BY f.path", sel.params)]


def keep_selected(catalog: Catalog, ids: Sequence[int], sel: Selection) -> set[int]:
    """The ids among `ids` whose chunk exists and the selection keeps."""
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    return {r[0] for r in catalog.db.execute(
        f"SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN ({marks})"
        f" AND ({sel.where})", [*ids, *sel.params])}


def keyword_ids(catalog: Catalog, fts: str, k: int, sel: Selection
                ) -> list[tuple[int, float]]:
    """The bm25 top-`k` (chunk id, score: higher is better) of an FTS5 query within the
    selection, equal scores in (path, first line) order and cut in that order (ties.py).

    bm25 ties often: the index keeps no chunk sizes (migration 5), so chunks holding the
    query's words as often score alike; in the benchmark's 100k store the 100th and the
    101st tied for 25 of 30 questions, in runs of 2 to 44 chunks."""
    if k <= 0:
        return []
    if sel.everything:  # no filter, no join (measured: 2.1 ms instead of 3.8 ms at 1k chunks)
        return _unfiltered(catalog, fts, k)
    rows = catalog.db.execute(
        "SELECT c.id, -bm25(chunks_fts) FROM chunks_fts JOIN chunks c"
        " ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id"
        f" WHERE chunks_fts MATCH ? AND ({sel.where})"
        " ORDER BY bm25(chunks_fts), f.path, c.start_line LIMIT ?",
        [fts, *sel.params, k]).fetchall()
    return [(int(r[0]), float(r[1])) for r in rows]


# The chunks of one bm25 score, by place. Materialized: the score is checked in the FTS
# scan and only the tied chunks are joined (EXPLAIN: MATERIALIZE tied, then SEARCH c and
# f by primary key per tied row), not every match.
_TIED = ("WITH tied(id) AS MATERIALIZED (SELECT rowid FROM chunks_fts"
         " WHERE chunks_fts MATCH ?1 AND bm25(chunks_fts) = ?2)"
         " SELECT c.id FROM tied CROSS JOIN chunks c ON c.id = tied.id"
         " JOIN files f ON f.id = c.file_id ORDER BY f.path, c.start_line LIMIT ?3")


# The unfiltered keyword list reads this many past its cut, to hold the run of equal
# scores there: at 100k chunks (30 questions) the 100th and 101st tied for 25, and no
# run passed the 132nd; the top 132 cost 2.13 ms p50 where the top 100 cost 2.08 (200:
# 2.42; the top 101 and a second scan of the tied score for the 25: +0.6x).
TIE_SLACK = 32


def _unfiltered(catalog: Catalog, fts: str, k: int) -> list[tuple[int, float]]:
    """`keyword_ids` without a filter: the FTS5 top k + TIE_SLACK alone (no join per
    match), which holds the run of equal scores at the cut unless it is longer; then
    that score's chunks are read again, by place (a second scan). Runs in place order."""
    depth = k + TIE_SLACK
    rows = catalog.match(fts, depth)
    order = partial(place_order, catalog)
    if len(rows) <= k:
        return in_place(rows, order)
    last = rows[k - 1][1]
    if len(rows) == depth and rows[-1][1] == last:  # the run may go on past what was read
        better = [r for r in rows if r[1] > last]
        tied = catalog.db.execute(_TIED, (fts, -last, k - len(better))).fetchall()
        rows = better + [(int(r[0]), last) for r in tied]
    else:
        rows = [r for r in rows if r[1] >= last]  # the whole run at the cut, to choose from
    return in_place(rows, order)[:k]


def place_order(catalog: Catalog, ids: Sequence[int]) -> dict[int, int]:
    """The ranks of the chunks among `ids` in (path, first line) order (ties.Order):
    0.14 ms for 100 ids at 100k chunks, where reading their places took 0.35."""
    marks = ",".join("?" * len(ids))
    rows = catalog.db.execute(
        "SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id"
        f" WHERE c.id IN ({marks}) ORDER BY f.path, c.start_line", [int(i) for i in ids])
    return {int(r[0]): n for n, r in enumerate(rows)}


@dataclass(frozen=True, slots=True)
class ChunkExport(ChunkRecord):
    """A chunk as a Milvus row holds it besides its vector: the record, the identifiers
    its keyword index splits out, and its file's language and extension."""

    idents: str = ""
    lang: str = ""
    ext: str = ""


def exported_chunks(catalog: Catalog, ids: Sequence[int]) -> list[ChunkExport]:
    """What a Milvus row holds of each chunk among `ids` that exists (one query)."""
    if not len(ids):
        return []
    marks = ",".join("?" * len(ids))
    rows = catalog.db.execute(
        "SELECT c.id, f.path, c.ordinal, c.start_line, c.end_line, c.kind, c.symbol, c.text,"
        " c.idents, f.lang, f.ext FROM chunks c JOIN files f ON f.id = c.file_id"
        f" WHERE c.id IN ({marks}) ORDER BY c.id", [int(i) for i in ids]).fetchall()
    return [ChunkExport(*row) for row in rows]


def definitions(catalog: Catalog, name: str, sel: Selection = EVERYTHING,
                limit: int = 500) -> list[Definition]:
    """Definitions whose name is `name` (case-insensitive) within the selection: those
    spelled as asked first, then by place, so that the `limit` kept of a name defined
    more often depend on the content, not on the order it was indexed in (issue #47)."""
    rows = catalog.db.execute(
        "SELECT f.path, s.start_line, s.end_line, s.kind, s.name, s.qualname,"
        " s.signature, s.chunk_id FROM symbols s JOIN files f ON f.id = s.file_id"
        f" WHERE s.name = ?1 COLLATE NOCASE AND ({sel.where})"
        " ORDER BY s.name != ?1, f.path, s.start_line LIMIT ?",
        [name, *sel.params, limit]).fetchall()
    return [Definition("", *row) for row in rows]


def file_definitions(catalog: Catalog, path: str) -> list[Definition]:
    """The definitions of the file at `path` and its Markdown sections (kind "section",
    named by their heading path), in line order: what encloses a grep match (#23)."""
    rows = catalog.db.execute(
        "SELECT start_line, end_line, kind, name, qualname, signature, chunk_id FROM"
        " symbols WHERE file_id = (SELECT id FROM files WHERE path = ?1) UNION ALL"
        " SELECT start_line, end_line, kind, symbol, symbol, '', id FROM chunks"
        " WHERE file_id = (SELECT id FROM files WHERE path = ?1) AND kind = 'section'"
        " AND symbol != '' ORDER BY 1, 2 DESC", (path,)).fetchall()
    return [Definition("", path, *row) for row in rows]


def paths_under(catalog: Catalog, rel: str) -> list[str]:
    """Indexed paths equal to `rel` or inside the folder `rel` ("." or "": every path)."""
    if rel in ("", "."):
        return [r[0] for r in catalog.db.execute("SELECT path FROM files")]
    return [r[0] for r in catalog.db.execute(
        "SELECT path FROM files WHERE path = ? OR path GLOB ?",
        (rel, glob_escape(rel.rstrip("/")) + "/*"))]


def file_with_hash(catalog: Catalog, digest: str, other_than: str, rules: str
                   ) -> tuple[int, int] | None:
    """(id, strings redacted) of a committed file with this content hash at another
    path, read under these secret rules, if there is one."""
    row = catalog.db.execute(
        "SELECT id, redacted FROM files WHERE hash=? AND path != ? AND rules=? LIMIT 1",
        (digest, other_than, rules)).fetchone()
    return None if row is None else (int(row[0]), int(row[1]))


def file_chunks(catalog: Catalog, path: str) -> list[ChunkRecord]:
    """The chunks of the file at `path`, in line order."""
    rows = catalog.db.execute(
        "SELECT c.id, f.path, c.ordinal, c.start_line, c.end_line, c.kind, c.symbol, c.text"
        " FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = ?"
        " ORDER BY c.start_line, c.ordinal", (path,)).fetchall()
    return [ChunkRecord(*row) for row in rows]


def overlapping_definitions(catalog: Catalog, ids: Sequence[int]
                            ) -> dict[int, list[Definition]]:
    """For each chunk among `ids`, the definitions of its file whose lines overlap the
    chunk's, in line order (one query): what a hit is a whole or a part of (issue #46)."""
    if not len(ids):
        return {}
    marks = ",".join("?" * len(ids))
    rows = catalog.db.execute(
        "SELECT c.id, f.path, s.start_line, s.end_line, s.kind, s.name, s.qualname,"
        " s.signature, s.chunk_id FROM chunks c CROSS JOIN symbols s ON s.file_id = c.file_id"
        " JOIN files f ON f.id = c.file_id"
        f" WHERE c.id IN ({marks}) AND s.start_line <= c.end_line"
        " AND s.end_line >= c.start_line ORDER BY c.id, s.start_line, s.end_line DESC",
        [int(i) for i in ids]).fetchall()
    out: dict[int, list[Definition]] = {}
    for cid, *row in rows:
        out.setdefault(int(cid), []).append(Definition("", *row))
    return out


def span_chunks(catalog: Catalog, spans: Sequence[tuple[str, int, int]]
                ) -> list[ChunkRecord]:
    """The chunks overlapping any of `spans` ((path, first line, last line)), in (path,
    line) order (one query): the lines of a definition as they were indexed."""
    if not spans:
        return []
    values = ",".join("(?, ?, ?)" for _ in spans)
    rows = catalog.db.execute(
        f"WITH span(path, lo, hi) AS (VALUES {values}) SELECT DISTINCT c.id, f.path,"
        " c.ordinal, c.start_line, c.end_line, c.kind, c.symbol, c.text FROM span"
        " CROSS JOIN files f ON f.path = span.path CROSS JOIN chunks c ON c.file_id = f.id"
        " WHERE c.start_line <= span.hi AND c.end_line >= span.lo"
        " ORDER BY f.path, c.start_line, c.ordinal",
        [v for span in spans for v in span]).fetchall()
    return [ChunkRecord(*row) for row in rows]
