"""Definitions by name: the `symbol` command and the symbol list fused into search.

A query is looked up by the identifiers in it: `HTTPException`, `basic_json`,
`Rack::Builder`, `Type.method`, `parse_args`. A plain word counts only when it is the
whole query. Definitions are ranked: the exact spelling first, then a matching
qualifier (`Rack::Builder` prefers `Builder` inside `Rack`), class-like kinds before
functions, a C++ primary template before its specialisations, shorter paths (less
nested, less likely vendored) first.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, cast

from semlith.store import Store

_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:(?:::|\.|#|->)[A-Za-z_$][\w$]*)*")
_KIND_ORDER = {"class": 0, "struct": 0, "interface": 0, "enum": 0, "module": 1, "impl": 1,
               "type": 2, "function": 3, "method": 3, "constant": 4}


@dataclass(frozen=True, slots=True)
class Identifier:
    name: str  # the last part: `method` of `Type::method`
    qualifier: str  # the parts before it, joined with ".": `Type`; "" when none
    text: str  # as typed


class Located:
    """A result at `path:start-end` (a search hit, a definition): its JSON is its fields."""

    __slots__ = ()
    path: str
    start_line: int
    end_line: int

    def as_json(self) -> dict[str, Any]:
        return asdict(cast(Any, self))

    @property
    def locator(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"


@dataclass(frozen=True, slots=True)
class SymbolHit(Located):
    """One definition. `as_json()` is the `symbol --json` schema."""

    store: str
    path: str
    start_line: int
    end_line: int
    kind: str
    name: str
    qualname: str
    signature: str


def identifiers(query: str) -> list[Identifier]:
    """The identifier-shaped words of a query (every word when it is a single one)."""
    words = _IDENT.findall(query)
    single = len(query.split()) == 1
    found = []
    for word in words:
        parts = re.split(r"::|\.|#|->", word)
        shaped = len(parts) > 1 or "_" in word.strip("_") or _camel(word)
        if shaped or single:
            found.append(Identifier(parts[-1], ".".join(parts[:-1]), word))
    return found


def _camel(word: str) -> bool:
    """fooBar, FooBar, HTTPServer: an inner capital after a letter."""
    return bool(re.search(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]", word))


def lookup(store: Store, ident: Identifier, *, where: str = "1",
           params: list[str] | None = None, limit: int = 20,
           strict: bool = True) -> list[tuple[Any, ...]]:
    """Rows (chunk_id, path, start, end, kind, name, qualname, signature), ranked.

    `strict` keeps only the best tier (exact spelling, then matching qualifier) when
    any definition reaches it; otherwise those tiers just rank first.
    """
    rows = store.catalog.db.execute(
        "SELECT s.chunk_id, f.path, s.start_line, s.end_line, s.kind, s.name, s.qualname,"
        " s.signature FROM symbols s JOIN files f ON f.id = s.file_id"
        f" WHERE s.name = ? COLLATE NOCASE AND ({where}) LIMIT 500",
        [ident.name, *(params or [])]).fetchall()
    qualifier = ident.qualifier.lower()

    def qualified(row: tuple[Any, ...]) -> bool:
        return not qualifier or str(row[6]).lower().endswith(f"{qualifier}.{row[5].lower()}")

    # The exact spelling, and the qualifier when one was given, win outright when any
    # definition has them: `Helpers` is not `helpers`, `Rack::Request` not `Digest::Request`.
    if strict:
        rows = [r for r in rows if r[5] == ident.name] or rows
        rows = [r for r in rows if qualified(r)] or rows

    def rank(row: tuple[Any, ...]) -> tuple[bool, bool, int, bool, int, int]:
        return (row[5] != ident.name, not qualified(row), _KIND_ORDER.get(row[4], 5),
                _specialised(row[5], row[7]), row[1].count("/"), len(row[1]))

    return sorted(rows, key=rank)[:limit]


def _specialised(name: str, signature: str) -> bool:
    """`struct formatter<int> {`: a C++ specialisation, listed after its primary template.

    (A generic class's own signature, `class Box<T>`, reads the same; it only moves
    relative to definitions of its name that have no angle brackets.)
    """
    return re.search(rf"\b{re.escape(name)}\s*<", signature or "") is not None


def symbol_list(store: Store, query: str, want: int, where: str,
                params: list[str]) -> dict[int, tuple[str, str]]:
    """Chunk id -> (name, kind) of the definitions a query names, best first."""
    found: dict[int, tuple[str, str]] = {}
    for ident in identifiers(query):
        for row in lookup(store, ident, where=where, params=params, limit=want):
            if row[0] is not None and row[0] not in found:
                found[int(row[0])] = (str(row[5]), str(row[4]))
    return dict(list(found.items())[:want])


def find_symbols(stores: list[tuple[str, Store]], text: str, limit: int = 50
                 ) -> list[SymbolHit]:
    """Every definition named `text` (`name`, `Type.method`, `Type::method`), ranked."""
    ident = Identifier(*_split(text.strip()), text=text.strip())
    if not ident.name:
        raise ValueError("the symbol name is empty")
    hits = []
    for label, store in stores:
        hits += [SymbolHit(label, r[1], r[2], r[3], r[4], r[5], r[6], r[7])
                 for r in lookup(store, ident, limit=limit, strict=False)]
    return hits[:limit]


def _split(text: str) -> tuple[str, str]:
    parts = [p for p in re.split(r"::|\.|#|->", text) if p]
    return (parts[-1], ".".join(parts[:-1])) if parts else ("", "")
