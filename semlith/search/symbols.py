"""Definitions by name: the `symbol` command and the symbol list fused into search.

A query is looked up by the identifiers in it: `HTTPException`, `basic_json`,
`Rack::Builder`, `Type.method`, `parse_args`. A plain word counts only when it is the
whole query. Definitions are ranked: the exact spelling first, then a matching
qualifier (`Rack::Builder` prefers `Builder` inside `Rack`), class-like kinds before
functions, definitions outside tests first, a C++ primary template before its
specialisations, shorter paths (less nested, less likely vendored) first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from semlith.base.roles import is_test
from semlith.base.text import IDENTIFIER, Identifier, split_name
from semlith.errors import UnknownSymbol
from semlith.ranking.evidence import Evidence
from semlith.store import Store
from semlith.store.corpus import Corpus
from semlith.store.query import EVERYTHING, Selection
from semlith.types import Definition, Filters

_KIND_ORDER = {"class": 0, "struct": 0, "interface": 0, "enum": 0, "module": 1, "impl": 1,
               "type": 2, "function": 3, "method": 3, "constant": 4}


def lookup(corpus: Corpus, ident: Identifier, *, sel: Selection = EVERYTHING,
           limit: int = 20, strict: bool = True) -> list[Definition]:
    """Definitions named by `ident`, ranked (see the module docstring).

    `strict` keeps only the best tier (exact spelling, then matching qualifier) when
    any definition reaches it; otherwise those tiers just rank first.
    """
    rows = corpus.definitions(ident.name, sel)

    def qualified(row: Definition) -> bool:
        return _qualifies(row.qualname, row.name, ident.qualifier)

    # The exact spelling, and the qualifier when one was given, win outright when any
    # definition has them: `Helpers` is not `helpers`, `Rack::Request` not `Digest::Request`.
    if strict:
        rows = [r for r in rows if r.name == ident.name] or rows
        rows = [r for r in rows if qualified(r)] or [
            r for r in rows if r.kind != "variable" or _module_named(r.path, ident.qualifier)]

    def rank(row: Definition) -> tuple[bool, bool, bool, int, bool, int, int, str, int]:
        return (row.name != ident.name, not qualified(row), is_test(row.path),
                _KIND_ORDER.get(row.kind, 5), _specialised(row.name, row.signature),
                row.path.count("/"), len(row.path), row.path, row.start_line)

    return sorted(rows, key=rank)[:limit]


def _qualifies(qualname: str, name: str, qualifier: str) -> bool:
    """Whether a definition's qualname carries `qualifier` before `name`, at a name
    boundary: `Session.send` is not `RedirectSession.send`."""
    qualname, wanted = qualname.lower(), f"{qualifier.lower()}.{name.lower()}"
    return not qualifier or qualname == wanted or qualname.endswith("." + wanted)


def _module_named(path: str, qualifier: str) -> bool:
    """Whether a file's path names `qualifier`'s last part as a folder or a file stem:
    `flask.g` may mean the `g` that src/flask/globals.py binds. A variable (a name a
    module binds by assignment) answers a qualifier its qualname lacks only so: `self.a`
    and `abc.ABC` in an issue are no module's `a` or `ABC` (pylint's test data bind
    hundreds of such names)."""
    if not qualifier:
        return True
    last = split_name(qualifier)[-1].lower()
    parts = path.lower().split("/")
    return last in parts[:-1] or parts[-1].rsplit(".", 1)[0] == last


def _specialised(name: str, signature: str) -> bool:
    """`struct formatter<int> {`: a C++ specialisation, listed after its primary template.

    (A generic class's own signature, `class Box<T>`, reads the same; it only moves
    relative to definitions of its name that have no angle brackets.)
    """
    return re.search(rf"\b{re.escape(name)}\s*<", signature or "") is not None


def symbol_list(corpus: Corpus, idents: Sequence[Identifier], want: int,
                sel: Selection = EVERYTHING, located: Mapping[str, frozenset[str]] | None = None
                ) -> dict[int, tuple[str, str]]:
    """Chunk id -> (name, kind) of the definitions a query's identifiers name, best first.

    `located` (`issue_files`): the files an issue names, each with the functions its
    frames name there. The order: definitions that carry the owner written, a frame's
    own definition, a definition in a named file, then those found by a name alone."""
    found: dict[int, tuple[str, str]] = {}
    if not corpus.indexes_definitions:  # the chunks' symbols, by place
        for ident in idents:
            for row in corpus.definitions(ident.name, sel, want):
                if row.chunk_id is not None:
                    found.setdefault(row.chunk_id, (row.name, row.kind))
        return dict(list(found.items())[:want])
    # A definition that carries the owner the query writes (`Plotter._finalize_figure`)
    # comes before those found by a name alone (`so.Nominal`: `so` is an import alias),
    # whichever identifier came first (benchmarks/issues.py: tune hit@1 45.2 -> 48.4 %).
    located = located or {}
    tiers: tuple[list[Definition], ...] = ([], [], [], [])
    for ident in idents:
        for row in lookup(corpus, ident, sel=sel, limit=want):
            here = located.get(row.path)
            owned = bool(ident.qualifier) and _qualifies(row.qualname, row.name,
                                                         ident.qualifier)
            tier = 0 if owned else 1 if here and row.name in here else \
                2 if here is not None else 3
            tiers[tier].append(row)
    for row in [row for tier in tiers for row in tier]:
        if row.chunk_id is not None and row.chunk_id not in found:
            found[row.chunk_id] = (row.name, row.kind)
    return dict(list(found.items())[:want])


def issue_files(corpus: Corpus, evidence: Evidence | None) -> dict[str, frozenset[str]]:
    """The indexed files an issue names (its frames' and its prose's paths), each with the
    functions its frames name there (`symbol_list`'s `located`).

    A named path is an indexed file when its last two components or more end the file's
    path: a frame's `.../site-packages/_pytest/unittest.py` is `src/_pytest/unittest.py`,
    `/usr/lib/python3.9/multiprocessing/pool.py` is no project's `src/pool.py`. A bare
    file name (`sessions.py`), or a path ending in a file at the store's top
    (`/home/u/app/main.go` in a store of `app`), is one only when no other indexed file
    has its name."""
    if evidence is None or not evidence.paths:
        return {}
    parts = {named: [p for p in _SEPARATORS.split(named) if p not in ("", ".", "..")]
             for named in evidence.paths}
    names = tuple(sorted({p[-1] for p in parts.values() if p}))
    indexed = [path.split("/") for path in corpus.file_paths(Selection.of(Filters(paths=names)))]
    functions: dict[str, set[str]] = {}
    for frame in evidence.frames:
        if frame.defined:
            functions.setdefault(frame.path, set()).add(frame.defined)
    out: dict[str, set[str]] = {}
    for named, mine in parts.items():
        for path in _ending(mine, indexed):
            out.setdefault(path, set()).update(functions.get(named, ()))
    return {path: frozenset(funcs) for path, funcs in out.items()}


_SEPARATORS = re.compile(r"[\\/]+")


def _ending(named: list[str], indexed: list[list[str]]) -> list[str]:
    """The indexed paths that end with the most of `named`'s components, if enough do."""
    best, found = 0, []
    for path in indexed:
        n = 0
        while n < min(len(named), len(path)) and named[-1 - n] == path[-1 - n]:
            n += 1
        if n > best:
            best, found = n, ["/".join(path)]
        elif n == best and n:
            found.append("/".join(path))
    # One component: a bare name, or a path ending in a file at the store's top (a Go
    # panic's `/home/u/app/server.go`), and no other file of that name.
    alone = len(found) == 1 and (len(named) == 1 or "/" not in found[0])
    return found if best >= 2 or (best == 1 and alone) else []


def find_symbols(stores: list[tuple[str, Store]], text: str, limit: int = 50
                 ) -> list[Definition]:
    """Every definition named `text` (`name`, `Type.method`, `Type::method`), ranked.
    A corpus without a definitions table (a mirror) has none to list."""
    ident = Identifier(*_split(text.strip()), text=text.strip())
    if not ident.name:
        raise ValueError("the symbol name is empty")
    hits = []
    for label, store in stores:
        if store.corpus.indexes_definitions:
            hits += [replace(r, store=label)
                     for r in lookup(store.corpus, ident, limit=limit, strict=False)]
    if ident.qualifier and hits and not any(_owned(h, ident) for h in hits):
        # A qualifier that matches nothing is refused, never swapped for another
        # owner's method (issue #22: `Nonexistent.send` answered BaseAdapter.send).
        nearest = ", ".join(dict.fromkeys(h.qualname or h.name for h in hits[:5]))
        raise UnknownSymbol(f"no definition of `{ident.text}`; nearest: {nearest}")
    return hits[:limit]


def _owned(hit: Definition, ident: Identifier) -> bool:
    """Whether a definition belongs to the qualifier asked for: by qualname, or (a Go
    method, whose qualname is its bare name) by the receiver in its signature."""
    qualifier, qualname = ident.qualifier.lower(), (hit.qualname or hit.name).lower()
    wanted = f"{qualifier}.{hit.name.lower()}"
    last = qualifier.rsplit(".", 1)[-1]
    return qualname == wanted or qualname.endswith("." + wanted) or (
        "." not in qualname and re.search(rf"\b{re.escape(last)}\b", hit.signature.lower())
        is not None)


def named_definition(stores: list[tuple[str, Store]], text: str) -> Definition | None:
    """The best definition `text` names exactly (`name`, `Type.method`, `Type::method`:
    the spelling, and the qualifier when given), or None.

    For reads: a target that is not identifier-shaped (a path such as
    `.semlith/store.db`) or that only resembles a name (`Db` for `db`) names nothing, so
    a read is refused rather than answered with another name's definition (issue #25).
    A qualifier that owns no such name raises UnknownSymbol with the nearest real names.
    """
    text = text.strip()
    if not IDENTIFIER.fullmatch(text):
        return None
    name, qualifier = _split(text)
    found = find_symbols(stores, text, limit=1)  # UnknownSymbol: a qualifier nothing has
    if found and found[0].name == name and _qualifies(found[0].qualname, name, qualifier):
        return found[0]
    return None


def _split(text: str) -> tuple[str, str]:
    parts = split_name(text)
    return (parts[-1], ".".join(parts[:-1])) if parts else ("", "")
