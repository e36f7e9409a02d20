"""The code graph's rows in the catalog (issue #22): each file's edges as written, and
the reads the resolver makes. Only `store/` speaks SQL; `graph/` calls these.

A file's edges are replaced in the transaction that replaces its chunks, copied with a
copied file, kept by a moved one (they are keyed by file id, and nothing in them names
their own path) and deleted with the file (`ON DELETE CASCADE`, migration 8).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from semlith.ingest.graph.records import (
    Call,
    Contain,
    FileEdges,
    Import,
    ImportKind,
    Inherit,
    InheritKind,
    Local,
    LocalKind,
    QualifierKind,
)
from semlith.store.catalog import Catalog, like_escape

# Kinds by their stored text: a dict lookup, where calling the enum per row was a
# quarter of loading a file's edges (cProfile, a cold `impact` on a 112k-chunk store).
_QUALIFIER = {str(k): k for k in QualifierKind}
_IMPORT = {str(k): k for k in ImportKind}
_INHERIT = {str(k): k for k in InheritKind}
_LOCAL = {str(k): k for k in LocalKind}
_TABLES = ("edge_calls", "edge_imports", "edge_inherits", "edge_contains", "edge_locals",
           "edge_files")


@dataclass(frozen=True, slots=True)
class EdgeFile:
    """A file that has edges: where it is, its language, the package it declares."""

    id: int
    path: str
    lang: str
    package: str


@dataclass(frozen=True, slots=True)
class GraphDef:
    """A definition of the symbol table, with its file."""

    file_id: int
    path: str
    lang: str
    name: str
    qualname: str
    kind: str
    start_line: int
    end_line: int
    line: int  # its own first line (`def`, `func`), after decorators and comments


@dataclass(frozen=True, slots=True)
class CallSite:
    """A stored call and the file it is in."""

    file_id: int
    call: Call


def write_edges(db: sqlite3.Connection, file_id: int, edges: FileEdges,
                fingerprint: str) -> None:
    """Replace a file's edges (inside the caller's transaction)."""
    delete_edges(db, [file_id])
    db.execute("INSERT INTO edge_files(file_id, fingerprint, package, failed, truncated)"
               " VALUES (?, ?, ?, ?, ?)",
               (file_id, fingerprint, edges.package, edges.failed, int(edges.truncated)))
    db.executemany(
        "INSERT INTO edge_calls(file_id, line, col, name, receiver, qualifier, caller)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(file_id, c.line, c.column, c.name, c.receiver, str(c.qualifier_kind), c.caller)
         for c in edges.calls])
    db.executemany(
        "INSERT INTO edge_imports(file_id, line, module, name, alias, kind)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [(file_id, i.line, i.module, i.name, i.alias, str(i.kind)) for i in edges.imports])
    db.executemany(
        "INSERT INTO edge_inherits(file_id, line, child, parent, kind) VALUES (?, ?, ?, ?, ?)",
        [(file_id, i.line, i.child, i.parent, str(i.kind)) for i in edges.inherits])
    db.executemany(
        "INSERT INTO edge_contains(file_id, parent, child, kind, line) VALUES (?, ?, ?, ?, ?)",
        [(file_id, c.parent, c.child, c.kind, c.line) for c in edges.contains])
    db.executemany(
        "INSERT INTO edge_locals(file_id, line, name, type_name, kind, scope, field)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(file_id, x.line, x.name, x.type_name, str(x.kind), x.scope, int(x.field))
         for x in edges.locals])


def delete_edges(db: sqlite3.Connection, file_ids: Sequence[int]) -> None:
    for file_id in file_ids:
        for table in _TABLES:
            db.execute(f"DELETE FROM {table} WHERE file_id=?", (file_id,))


def copy_edges(db: sqlite3.Connection, source: int, target: int) -> None:
    """Give file `target` the edges of `source` (an identical file)."""
    delete_edges(db, [target])
    columns = {
        "edge_files": "fingerprint, package, failed, truncated",
        "edge_calls": "line, col, name, receiver, qualifier, caller",
        "edge_imports": "line, module, name, alias, kind",
        "edge_inherits": "line, child, parent, kind",
        "edge_contains": "parent, child, kind, line",
        "edge_locals": "line, name, type_name, kind, scope, field",
    }
    for table, cols in columns.items():
        db.execute(f"INSERT INTO {table}(file_id, {cols}) SELECT ?, {cols} FROM {table}"
                   " WHERE file_id=?", (target, source))


def stale_edge_files(catalog: Catalog, current: Mapping[str, str]) -> list[tuple[int, str]]:
    """(file id, path) of the committed files of the languages in `current` whose edges
    were not made with that language's fingerprint (or were never made)."""
    if not current:
        return []
    # Compared in SQL: a no-op run of 10,000 files fetched every row to compare them in
    # Python, 47-150 ms of a 500-900 ms run; this answers none in 3-15 ms (a CTE of the
    # pairs joined to files took 110-200 ms: it scans files once per language).
    marks = ",".join("?" * len(current))
    cases = " ".join("WHEN ? THEN ?" for _ in current)
    return [(int(r[0]), str(r[1])) for r in catalog.db.execute(
        "SELECT f.id, f.path FROM files f LEFT JOIN edge_files e ON e.file_id = f.id"
        f" WHERE f.hash != '' AND f.lang IN ({marks})"
        f" AND COALESCE(e.fingerprint, '') != CASE f.lang {cases} END",
        [*current, *(v for pair in current.items() for v in pair)])]


def edge_counts(catalog: Catalog) -> dict[str, int]:
    """Rows per edge kind, and files whose extraction failed (for `stats` and tests)."""
    db = catalog.db
    counts = {table.removeprefix("edge_"): int(db.execute(
        f"SELECT COUNT(*) FROM {table}").fetchone()[0]) for table in _TABLES}
    counts["failed"] = int(db.execute(
        "SELECT COUNT(*) FROM edge_files WHERE failed != ''").fetchone()[0])
    return counts


def unread_edge_files(catalog: Catalog, langs: Sequence[str]) -> int:
    """Files of `langs` whose edges failed or were cut short (a size or time cap)."""
    marks = ",".join("?" * len(langs))
    # The language asked of the few failed rows only: joining every row was 2x slower.
    return int(catalog.db.execute(
        "SELECT COUNT(*) FROM edge_files e WHERE (e.failed != '' OR e.truncated)"
        f" AND (SELECT lang FROM files WHERE id = e.file_id) IN ({marks})",
        langs).fetchone()[0])


def failed_edges(catalog: Catalog) -> dict[str, str]:
    """path -> why a file has no edges."""
    return {str(r[0]): str(r[1]) for r in catalog.db.execute(
        "SELECT f.path, e.failed FROM edge_files e JOIN files f ON f.id = e.file_id"
        " WHERE e.failed != ''")}


# -- reads for the module map ----------------------------------------------------------
# A question looks files up by what an import names (a path, a folder, a file or folder
# name, a Go package) through the indexes of migration 9, on expressions of `files.path`
# that a query must spell as the index does: so they follow a move without upkeep.


def _last_segment(path: str) -> str:
    """SQL for the last segment of `path`: rtrim strips every character but '/' from
    the right, leaving the folder and its slash."""
    return f"substr({path}, length(rtrim({path}, replace({path}, '/', ''))) + 1)"


FOLDER_SQL = "rtrim(f.path, replace(f.path, '/', ''))"  # 'a/b/'; '' at the root
NAME_SQL = _last_segment("f.path")
FOLDER_NAME_SQL = _last_segment(f"rtrim({FOLDER_SQL}, '/')")
_EDGE_FILE = ("SELECT f.id, f.path, f.lang, e.package FROM edge_files e"
              " JOIN files f ON f.id = e.file_id")


def _edge_file_rows(catalog: Catalog, where: str, params: Sequence[object]
                    ) -> list[EdgeFile]:
    return [EdgeFile(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in catalog.db.execute(
        f"{_EDGE_FILE} WHERE {where} ORDER BY f.id", params)]


def _chunked(catalog: Catalog, column: str, values: Iterable[object]) -> list[EdgeFile]:
    wanted = list(dict.fromkeys(values))
    out: list[EdgeFile] = []
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        out += _edge_file_rows(catalog, f"{column} IN ({','.join('?' * len(part))})", part)
    return out


def edge_files(catalog: Catalog) -> list[EdgeFile]:
    """Every file that has edges (benchmarks and tests walk them all; a question does
    not)."""
    return _edge_file_rows(catalog, "1", ())


def edge_files_by_id(catalog: Catalog, ids: Iterable[int]) -> list[EdgeFile]:
    return _chunked(catalog, "f.id", ids)


def edge_files_at(catalog: Catalog, paths: Iterable[str]) -> list[EdgeFile]:
    return _chunked(catalog, "f.path", paths)


def edge_files_in(catalog: Catalog, folder: str) -> list[EdgeFile]:
    """The files with edges directly in `folder` ('' = the root)."""
    return _edge_file_rows(catalog, f"{FOLDER_SQL} = ?", (f"{folder}/" if folder else "",))


def edge_files_named(catalog: Catalog, names: Iterable[str]) -> list[EdgeFile]:
    """The files with edges whose own name (`models.py`) is one of `names`."""
    return _chunked(catalog, NAME_SQL, names)


def edge_files_stemmed(catalog: Catalog, stem: str) -> list[EdgeFile]:
    """The files with edges whose name is `stem` and an extension (`stem.*`)."""
    # '/' follows '.' in ASCII: the range is the names that start with `stem.`
    return _edge_file_rows(catalog, f"{NAME_SQL} > ? AND {NAME_SQL} < ?",
                           (f"{stem}.", f"{stem}/"))


def edge_files_in_folders_named(catalog: Catalog, names: Iterable[str]) -> list[EdgeFile]:
    """The files with edges whose folder's own name is one of `names`."""
    return _chunked(catalog, FOLDER_NAME_SQL, names)


def edge_files_under(catalog: Catalog, folder: str, limit: int) -> list[EdgeFile]:
    """Up to `limit` files with edges anywhere below `folder` (a range of the path's
    unique index: '0' follows '/' in ASCII)."""
    return [EdgeFile(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in catalog.db.execute(
        f"{_EDGE_FILE} WHERE f.path > ? AND f.path < ? LIMIT ?",
        (f"{folder}/", f"{folder}0", limit))]


def edge_files_of_package(catalog: Catalog, package: str) -> list[EdgeFile]:
    """The files with edges that declare `package` (Go)."""
    return _edge_file_rows(catalog, "e.package = ?", (package,))


# -- reads for the resolver ------------------------------------------------------------


def file_edges(catalog: Catalog, file_id: int, *, calls: bool = True) -> FileEdges:
    """The stored edges of one file; without its calls when `calls` is false (what the
    resolver needs to know a file: most of a file's rows are its calls)."""
    return edges_of(catalog, [file_id], calls=calls)[file_id]


def edges_of(catalog: Catalog, file_ids: Sequence[int], *, calls: bool = False
             ) -> dict[int, FileEdges]:
    """The stored edges of several files, a query per kind for up to 500 of them (a
    cold `impact` reads the files of every call site of a name; query by query per
    file was a third of its reading)."""
    out: dict[int, FileEdges] = {}
    ids = list(dict.fromkeys(file_ids))
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        out.update(_edges_of(catalog, part, calls))
    return out


def _edges_of(catalog: Catalog, ids: list[int], calls: bool) -> dict[int, FileEdges]:
    marks = ",".join("?" * len(ids))

    def rows(columns: str, table: str, order: str = "") -> dict[int, list[Any]]:
        found: dict[int, list[Any]] = {i: [] for i in ids}
        for r in catalog.db.execute(f"SELECT file_id, {columns} FROM {table}"
                                    f" WHERE file_id IN ({marks}){order}", ids):
            found[r[0]].append(r[1:])
        return found

    made = rows("line, col, name, receiver, qualifier, caller", "edge_calls",
                " ORDER BY file_id, line, col") if calls else {}
    imports = rows("line, module, name, alias, kind", "edge_imports")
    inherits = rows("line, child, parent, kind", "edge_inherits")
    contains = rows("parent, child, kind, line", "edge_contains")
    locals_ = rows("line, name, type_name, kind, scope, field", "edge_locals")
    files = {r[0]: r[1:] for r in catalog.db.execute(
        f"SELECT file_id, package, failed, truncated FROM edge_files WHERE file_id IN ({marks})",
        ids)}
    out: dict[int, FileEdges] = {}
    for i in ids:
        package, failed, truncated = files.get(i, ("", "", False))
        out[i] = FileEdges(
            tuple(Call(r[0], r[1], r[2], r[3], _QUALIFIER[r[4]], r[5]) for r in made.get(i, ())),
            tuple(Import(r[0], r[1], r[2], r[3], _IMPORT[r[4]]) for r in imports[i]),
            tuple(Inherit(r[0], r[1], r[2], _INHERIT[r[3]]) for r in inherits[i]),
            tuple(Contain(r[0], r[1], r[2], r[3]) for r in contains[i]),
            tuple(Local(r[0], r[1], r[2], _LOCAL[r[3]], r[4], bool(r[5])) for r in locals_[i]),
            str(package), str(failed), bool(truncated))
    return out


def calls_named(catalog: Catalog, names: Iterable[str], langs: Sequence[str] = ()
                ) -> list[CallSite]:
    """Every stored call whose callee is written with one of `names`; only those in
    files of `langs` when it is given."""
    wanted = sorted(set(names))
    if not wanted:
        return []
    marks = ",".join("?" * len(wanted))
    # The language is asked of SQL: a name's sites in other languages were fetched,
    # turned into objects and their files looked up only to be skipped (#22).
    where = f" AND f.lang IN ({','.join('?' * len(langs))})" if langs else ""
    return [CallSite(r[0], Call(r[1], r[2], r[3], r[4], _QUALIFIER[r[5]], r[6]))
            for r in catalog.db.execute(
                "SELECT c.file_id, c.line, c.col, c.name, c.receiver, c.qualifier, c.caller"
                f" FROM edge_calls c JOIN files f ON f.id = c.file_id"
                f" WHERE c.name IN ({marks}){where} ORDER BY c.file_id, c.line, c.col",
                [*wanted, *langs])]


def calls_from(catalog: Catalog, file_id: int, caller: str) -> list[Call]:
    """The calls made directly inside definition `caller` (a qualname) of a file."""
    return [Call(int(r[0]), int(r[1]), str(r[2]), str(r[3]), _QUALIFIER[r[4]], str(r[5]))
            for r in catalog.db.execute(
                "SELECT line, col, name, receiver, qualifier, caller FROM edge_calls"
                " WHERE file_id=? AND caller=? ORDER BY line, col", (file_id, caller))]


# A definition's own line is its containment edge's (the symbol's span starts at its
# decorators and leading comments).
_DEFINITION = ("SELECT s.file_id, f.path, f.lang, s.name, s.qualname, s.kind, s.start_line,"
               " s.end_line, COALESCE((SELECT MIN(c.line) FROM edge_contains c"
               " WHERE c.file_id = s.file_id AND c.child = s.qualname AND c.line"
               " BETWEEN s.start_line AND s.end_line), s.start_line)"
               " FROM symbols s JOIN files f ON f.id = s.file_id")


def _definitions(rows: Iterable[tuple[Any, ...]]) -> list[GraphDef]:
    # The columns are NOT NULL INTEGER/TEXT: SQLite hands them over typed, and
    # converting each again was half the time of reading a file's definitions.
    return [GraphDef(*r) for r in rows]


def definitions_named(catalog: Catalog, name: str, langs: Sequence[str] = ()
                      ) -> list[GraphDef]:
    """Every definition whose simple name is `name` (case-sensitive); only those in
    files of `langs` when it is given."""
    where = f" AND f.lang IN ({','.join('?' * len(langs))})" if langs else ""
    return _definitions(catalog.db.execute(
        f"{_DEFINITION} WHERE s.name = ? COLLATE NOCASE"
        f" AND s.name = ?{where} ORDER BY f.path, s.start_line", (name, name, *langs)))


def definitions_of(catalog: Catalog, file_ids: Sequence[int]) -> dict[int, list[GraphDef]]:
    """The definitions of each of several files, in line order."""
    ids = list(dict.fromkeys(file_ids))
    out: dict[int, list[GraphDef]] = {i: [] for i in ids}
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        for d in _definitions(catalog.db.execute(
                f"{_DEFINITION} WHERE s.file_id IN ({','.join('?' * len(part))})"
                " ORDER BY s.file_id, s.start_line", part)):
            out[d.file_id].append(d)
    return out


def definitions_selected(catalog: Catalog, name: str, where: str, params: Sequence[str]
                         ) -> list[GraphDef]:
    """Definitions named `name` (any case) in the files a `Selection` (`where` over
    `files f`, its `params`) selects."""
    return _definitions(catalog.db.execute(
        f"{_DEFINITION} WHERE s.name = ? COLLATE NOCASE AND ({where})"
        " ORDER BY f.path, s.start_line LIMIT 500", (name, *params)))


def inherits_named(catalog: Catalog, name: str) -> list[tuple[int, Inherit]]:
    """(file id, record) of every base written as `name` or `something.name`."""
    return [(int(r[0]), Inherit(int(r[1]), str(r[2]), str(r[3]), _INHERIT[r[4]]))
            for r in catalog.db.execute(
                "SELECT file_id, line, child, parent, kind FROM edge_inherits"
                " WHERE parent = ? OR parent LIKE ? ESCAPE '\\'",
                (name, "%." + like_escape(name)))]


def imports_named(catalog: Catalog, name: str) -> list[tuple[int, Import]]:
    """(file id, record) of every import of a name `name`."""
    return [(int(r[0]), Import(int(r[1]), str(r[2]), str(r[3]), str(r[4]), _IMPORT[r[5]]))
            for r in catalog.db.execute(
                "SELECT file_id, line, module, name, alias, kind FROM edge_imports"
                " WHERE name = ?", (name,))]
