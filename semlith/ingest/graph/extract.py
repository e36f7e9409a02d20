"""Edges of one file, found with tree-sitter and the queries in `grammars/edges/`.

`extract_edges(text, language, code)` takes the file as `read_code` read it (one parse,
whose definitions the chunker uses too), runs the language's edge query a window at a
time and shapes each match into a record; `edges_from_tree` is that step alone.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from importlib import resources
from typing import Any

from semlith.base.languages import Language
from semlith.ingest.definitions import CodeFile, Definition, binds_value, read_code
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
)
from semlith.ingest.graph.scopes import Scopes
from semlith.ingest.graph.shapes import (
    bounded,
    chain_receiver,
    go_import,
    parent_text,
    qualifier,
    rust_use,
    split_path,
    text_of,
    type_text,
    unquote,
)
from semlith.ingest.parse import PARSE_SECONDS, ParseFailed, query_matches
from semlith.ingest.queries import compile_query, query_text

# The edge query gets the definitions' budget again, from when it starts (the parse and
# the definitions it reads are the chunker's, under their own deadline).
EDGE_SECONDS = PARSE_SECONDS
# A generated file can hold a call a line; past this many records a file's edges are cut
# (and marked truncated) rather than stored by the hundred thousand.
MAX_EDGES = 50_000


def _edge_source(grammar: str) -> Any:
    """grammars/edges/<grammar>.scm (it may not exist)."""
    return resources.files("semlith.grammars") / "edges" / f"{grammar}.scm"


@functools.cache
def edge_query(grammar: str) -> Any:
    """The compiled edge query of a grammar, or None without grammars/edges/<name>.scm."""
    return compile_query(grammar, _edge_source(grammar))


# Bump when the extraction changes what it records for an unchanged query: a store then
# extracts every file's edges again on its next run (no re-embedding).
EXTRACTOR_REVISION = 3
_AS_WRITTEN = (LocalKind.CALL, LocalKind.ALIAS)  # a name as written, not a type's text


@functools.cache
def edges_fingerprint(language: Language | None) -> str:
    """Identifies how edges of `language` are extracted today (revision + its edge query
    + the definitions query its callers' qualnames come from); "" without edges."""
    import xxhash

    if not has_edges(language) or language is None or language.grammar is None:
        return ""
    query = _edge_source(language.grammar).read_text()
    defs = resources.files("semlith.grammars") / f"{language.grammar}.scm"
    query += query_text(defs) if defs.is_file() else ""
    return f"{EXTRACTOR_REVISION}:{xxhash.xxh3_64_hexdigest(query.encode())}"


def has_edges(language: Language | None) -> bool:
    """Whether edges of this language are extracted (a grammar and an edge query)."""
    if language is None or language.grammar is None:
        return False
    return bool(_edge_source(language.grammar).is_file())


def extract_edges(text: str, language: Language, code: CodeFile | None = None) -> FileEdges:
    """Calls, imports, inheritance, containment and typed locals of one file; `code` is
    the text already read by `read_code` (one parse for the chunks and the edges).

    Never raises for the file's sake: a file that does not parse, or whose definitions,
    parse or query take longer than their bounds, gets empty edges and `failed` says why.
    """
    if not has_edges(language):
        return FileEdges(failed=f"no edge query for {language.name}")
    code = code or read_code(text, language)
    if code.parsed is None:
        return FileEdges(failed=f"definitions: {code.failed}")
    return edges_from_tree(code.parsed.tree, code.parsed.data, language, code.definitions,
                           deadline=time.monotonic() + EDGE_SECONDS)


def edges_from_tree(tree: Any, data: bytes, language: Language,
                    definitions: Sequence[Definition], *, deadline: float) -> FileEdges:
    """The edges of a parsed file: `tree` parsed from `data` (the text encoded as UTF-8
    with "replace", as `find_definitions` encodes it), `definitions` its definitions.
    Stops at `deadline` (a `time.monotonic()` value) with empty edges and the reason."""
    query = edge_query(str(language.grammar)) if language.grammar else None
    if query is None:
        return FileEdges(failed=f"no edge query for {language.name}")
    scopes = Scopes([d for d in definitions if not binds_value(d.kind, language.name)])
    collector = _Collector(language.name, data, scopes)
    try:
        for captures in query_matches(query, tree, len(data), deadline, "edges"):
            if not collector.add(captures):
                break
    except ParseFailed:
        return FileEdges(failed=f"edges took over {EDGE_SECONDS:g} s")
    except Exception as exc:  # noqa: BLE001 - the binding raises assorted errors
        return FileEdges(failed=f"{type(exc).__name__}: {exc}")
    return collector.result()


# Callee names that are paths: the path before the last name is the receiver.
_QUALIFIED = frozenset({"scoped_type_identifier", "qualified_name", "qualified_identifier",
                        "scoped_identifier"})
_NO_VALUE = frozenset({"None", "void", "()"})  # return types that type nothing
_ELIXIR_DEFINES = frozenset({"def", "defp", "defmacro", "defmacrop", "defguard", "defguardp",
                             "defdelegate"})


def _is_elixir_head(node: Any, data: bytes) -> bool:
    """Whether an Elixir call is the head of a definition (`def name(args)`, also before
    a `when` guard), which the tree holds as a call inside the `def` macro's arguments."""
    parent = node.parent
    if parent is not None and parent.type == "binary_operator":  # `def f(x) when ...`
        parent = parent.parent
    outer = parent.parent if parent is not None else None
    target = outer.child_by_field_name("target") if outer is not None else None
    return parent is not None and parent.type == "arguments" and target is not None and \
        text_of(target, data) in _ELIXIR_DEFINES


def _first(captures: dict[str, list[Any]], key: str) -> Any:
    nodes = captures.get(key)
    return nodes[0] if nodes else None


class _Collector:
    """Shapes query matches into records; a match is recognised by its root capture
    (`@call`, `@import.<kind>`, `@inherit.<kind>`, `@local.<kind>`, `@field.<kind>`,
    `@package`, `@selfname`, `@owner`)."""

    def __init__(self, language: str, data: bytes, scopes: Scopes) -> None:
        self.language = language
        self.data = data
        self.scopes = scopes
        self.seen: set[tuple[tuple[str, ...], tuple[int, ...]]] = set()
        # Calls are classified at the end: a Go method's receiver name may be seen later.
        self.raw_calls: list[tuple[int, int, str, str, str, int]] = []
        self.self_names: dict[int, str] = {}
        self.imports: list[Import] = []
        self.inherits: list[Inherit] = []
        self.locals: list[Local] = []
        self.package = ""
        self.truncated = False
        self.handlers = {"call": self._call, "import": self._import, "inherit": self._inherit,
                         "local": self._local, "field": self._local, "package": self._package,
                         "selfname": self._selfname, "owner": self._owner}
        self.owners: list[Contain] = []

    def add(self, captures: dict[str, list[Any]]) -> bool:
        """Take one match; False once MAX_EDGES records are held."""
        # A pattern's captures come in a fixed order: names and starts identify a match
        # (sorting them cost 10 ms of the 47 for _pydecimal.py's 8,900 matches).
        key = (tuple(captures), tuple([node.start_byte for nodes in captures.values()
                                       for node in nodes]))
        if key in self.seen:  # a match across a query window's edge comes once per window
            return True
        self.seen.add(key)
        for name, nodes in captures.items():
            family, _, kind = name.partition(".")
            handler = self.handlers.get(family)
            if handler is not None:
                handler(family, kind, nodes[0], captures)
                break
        if len(self.raw_calls) + len(self.imports) + len(self.locals) < MAX_EDGES:
            return True
        self.truncated = True
        return False

    def text(self, node: Any) -> str:
        return text_of(node, self.data)

    def _call(self, _family: str, _kind: str, node: Any, captures: dict[str, list[Any]]) -> None:
        name = _first(captures, "name")
        if name is None:
            return
        receiver, chain = _first(captures, "receiver"), _first(captures, "chain")
        name_text = self.text(name)
        if node.type == "macro_invocation":  # Rust: `format!` is no call of a `format` fn
            name_text += "!"
        if self.language == "elixir" and _is_elixir_head(node, self.data):
            return
        if name.type in ("super", "this"):  # `super(...)`, Java's `this(...)`: constructors
            text, node_type = name_text, ""
        elif receiver is not None:
            # Haskell's qualifier keeps its dot (`Map.`)
            text, node_type = self.text(receiver).removesuffix("."), receiver.type
        elif chain is not None:
            text, node_type = bounded(chain_receiver(chain, name, self.data)), ""
        elif name.type in _QUALIFIED:  # `new java.util.List()`, PHP's `\A\f()`
            (text, name_text), node_type = split_path(name_text), ""
        else:
            text, node_type = "", ""
        # The line of the callee's name, not of the expression's start: in a chain split
        # over lines (`fetch(url)\n  .then(parse)`) that is the line the call is read on,
        # and the line the reference oracles use (benchmarks/graph_oracles.md).
        self.raw_calls.append((name.start_point.row + 1, node.start_point.column,
                               bounded(name_text), bounded(text), node_type,
                               self.scopes.innermost(node.start_byte)))

    def _import(self, _family: str, kind: str, node: Any,
                captures: dict[str, list[Any]]) -> None:
        line, import_kind = node.start_point.row + 1, ImportKind(kind)
        use = _first(captures, "use")
        if use is not None:
            if node.named_children[0].type == "visibility_modifier":  # `pub use`
                import_kind = ImportKind.REEXPORT
            for module, name, alias in rust_use(use, self.data):
                bound = import_kind if name else ImportKind.MODULE
                self.imports.append(Import(line, bounded(module), name, alias, bound))
            return
        module, name, alias = self._import_parts(captures)
        if self.language == "go":
            name, alias, import_kind = go_import(alias) if alias else ("", "", import_kind)
        self.imports.append(Import(line, bounded(module), bounded(name), alias, import_kind))

    def _import_parts(self, captures: dict[str, list[Any]]) -> tuple[str, str, str]:
        path, alias = _first(captures, "path"), _first(captures, "alias")
        alias_text = self.text(alias) if alias is not None else ""
        if path is not None:
            if "wildcard" in captures:
                return self.text(path), "*", alias_text
            module, name = split_path(self.text(path))
            return module, name, alias_text
        module, name = _first(captures, "module"), _first(captures, "name")
        return (unquote(self.text(module)) if module is not None else "",
                self.text(name) if name is not None else "", alias_text)

    def _inherit(self, _family: str, kind: str, node: Any,
                 captures: dict[str, list[Any]]) -> None:
        child = _first(captures, "child")
        if child is None:
            return
        owner = self.scopes.named(child.start_byte, self.text(child))
        self.inherits.append(Inherit(node.start_point.row + 1, owner,
                                     parent_text(self.text(node)), InheritKind(kind)))

    def _local(self, family: str, kind: str, node: Any, captures: dict[str, list[Any]]) -> None:
        name, type_node = _first(captures, "name"), _first(captures, "type")
        if name is None or type_node is None:
            return
        line, name_text = node.start_point.row + 1, self.text(name)
        local_kind = LocalKind(kind)
        if family == "field":
            scope = self.scopes.enclosing_class(self.scopes.innermost(node.start_byte))
            if scope < 0:
                return
        elif local_kind is LocalKind.RETURNS:  # the match is the function itself
            scope = self.scopes.innermost(node.start_byte)
        else:
            scope = self.scopes.binding_scope(node.start_byte, name_text, line)
        written = self.text(type_node)
        if local_kind is LocalKind.LITERAL:  # its kind, not its text (`[...]` may be long)
            written = type_node.type
        type_name = bounded(written) if local_kind in _AS_WRITTEN else type_text(written)
        if local_kind is LocalKind.RETURNS and type_name in _NO_VALUE:
            return
        self.locals.append(Local(line, name_text, type_name, local_kind,
                                 self.scopes.qualname(scope),
                                 family == "field" or (local_kind is not LocalKind.RETURNS
                                                       and self.scopes.is_class_like(scope))))

    def _package(self, _family: str, _kind: str, node: Any, _captures: Any) -> None:
        self.package = self.package or bounded(self.text(node))

    def _selfname(self, _family: str, _kind: str, node: Any, _captures: Any) -> None:
        self.self_names[self.scopes.innermost(node.start_byte)] = self.text(node)

    def _owner(self, _family: str, _kind: str, node: Any,
               captures: dict[str, list[Any]]) -> None:
        """A Go method belongs to its receiver's type, which containment cannot show (the
        method is not inside the type; its qualname, `Cart.Add`, names the type): the type
        contains the method's qualname."""
        name, owner = _first(captures, "name"), _first(captures, "type")
        if name is not None and owner is not None:
            method = self.scopes.named(name.start_byte, self.text(name))
            self.owners.append(Contain(parent_text(type_text(self.text(owner))), method,
                                       "method", name.start_point.row + 1))

    def result(self) -> FileEdges:
        calls = tuple(Call(line, column, name, receiver,
                           qualifier(receiver, node_type, self.language,
                                     self.self_names.get(scope, "")),
                           self.scopes.qualname(scope))
                      for line, column, name, receiver, node_type, scope
                      in sorted(self.raw_calls))
        return FileEdges(calls, tuple(self.imports), tuple(self.inherits),
                         (*self.scopes.contains, *self.owners), tuple(dict.fromkeys(self.locals)),
                         self.package, truncated=self.truncated)
