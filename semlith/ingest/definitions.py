"""Definitions in source code, found with tree-sitter and the queries in `grammars/`.

`read_code(text, language)` parses the text once (bounded in time, `parse.py`), runs the
language's query and returns `Definition`s with 1-based line spans: `start_line` is
extended upward over the doc comments, decorators and attributes directly above the
definition; `cuts` are the lines where the statements of its body start (where a long
definition may be split). Nesting is resolved by the chunker.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from semlith.base.languages import Language
from semlith.ingest.parse import Parsed, ParseFailed, parse_text, query_matches
from semlith.ingest.queries import compile_query, query_text
from semlith.ingest.signatures import BODY_DEPTH, signature

# Nodes that belong to the definition below them when directly above it.
_ATTACHED = ("comment", "decorator", "attribute", "annotation", "doc",
             "unary_operator")  # Elixir `@doc`, `@spec` above a `def`
# Parents that wrap a definition with more of its text (decorators, `export`, templates).
_WRAPPERS = ("decorated_definition", "export_statement", "template_declaration",
             "attribute_declaration", "ambient_declaration")
# Tags of a doc block about the file, not the definition below it.
_FILE_DOC = re.compile(r"@(file|fileoverview|overview|module|license|copyright|"
                       r"packageDocumentation)\b")
CLASS_LIKE = frozenset({"class", "struct", "interface", "impl", "module", "enum"})
# A function directly in one of these is a method (not in a module, namespace or package).
METHOD_OWNERS = CLASS_LIKE - {"module"}
# Languages whose `variable` definitions (a name bound by assignment at a module's top,
# grammars/python.scm) bind values: such a name is no scope for the calls inside it
# (ingest/graph/extract.py: `a = b = func1` stays the module's) and no callee (graph/: a
# call through `builtin_str = str` calls the builtin, as jedi and an LSP count it).
_VALUE_BINDINGS = frozenset({"python"})


def binds_value(kind: str, language: str) -> bool:
    """Whether a definition of `kind` in `language` is a name bound to a value."""
    return kind == "variable" and language in _VALUE_BINDINGS


@dataclass(slots=True)
class Definition:
    kind: str
    name: str
    start_line: int  # 1-based, including attached comments/decorators
    def_line: int  # the line the definition itself starts on
    end_line: int
    signature: str
    cuts: list[int] = field(default_factory=list)
    span: tuple[int, int] = (0, 0)  # byte range of the definition node, for nesting
    children: list[Definition] = field(default_factory=list)
    qualifier: str = ""  # the object a member is assigned to: `proto` of `proto.handle`
    test: bool = False  # test code kept beside the code it tests (an `@test` mark above it)

    @property
    def qualified_name(self) -> str:
        return f"{self.qualifier}.{self.name}" if self.qualifier else self.name


@functools.cache
def _query(grammar: str) -> Any:
    """The compiled query of a language, or None when it has no grammars/<name>.scm."""
    return compile_query(grammar, resources.files("semlith.grammars") / f"{grammar}.scm")


# Raise when the planner changes how it cuts: every store re-chunks on its next full run.
CHUNKER_REVISION = 7


@functools.cache
def chunking_fingerprint(language: Language | None) -> str:
    """Identifies how files of `language` are cut today (revision + its grammar query).

    A store records the fingerprint per language after a full run; a file whose
    language's fingerprint changed (a new or improved query, a new planner) is cut again
    even though the file did not change.
    """
    import xxhash

    query = ""
    if language is not None and language.grammar is not None:
        source = resources.files("semlith.grammars") / f"{language.grammar}.scm"
        query = query_text(source) if source.is_file() else ""
    return f"{CHUNKER_REVISION}:{xxhash.xxh3_64_hexdigest(query.encode())}"


def has_definitions(language: Language | None) -> bool:
    """Whether definitions of this language are understood (a grammar and a query)."""
    if language is None or language.grammar is None:
        return False
    return (resources.files("semlith.grammars") / f"{language.grammar}.scm").is_file()


def find_definitions(text: str, language: Language) -> list[Definition]:
    """Every definition in `text`, in source order (not nested). Raises ParseFailed, also
    when parsing the file, querying it and reading its definitions take over PARSE_SECONDS."""
    code = read_code(text, language)
    if code.failed:
        raise ParseFailed(code.failed)
    return code.definitions


@dataclass(frozen=True, slots=True)
class CodeFile:
    """A code file read once (issue #43): its parse and definitions feed both the chunker
    and the edge extractor; `failed` says why there are none."""

    parsed: Parsed | None
    definitions: list[Definition]
    failed: str = ""


def read_code(text: str, language: Language) -> CodeFile:
    """`text` parsed once and its definitions read, or why that failed (never raises)."""
    try:
        if not language.grammar or _query(language.grammar) is None:
            raise ParseFailed(f"no grammar query for {language.name}")
        parsed = parse_text(text, language.grammar)
        return CodeFile(parsed, definitions_of(parsed, language))
    except ParseFailed as exc:
        return CodeFile(None, [], str(exc))


def definitions_of(parsed: Parsed, language: Language) -> list[Definition]:
    """Every definition of a parsed file, in source order (not nested), read by the
    parse's deadline (else ParseFailed)."""
    query = _query(language.grammar) if language.grammar else None
    if query is None:
        raise ParseFailed(f"no grammar query for {language.name}")
    data, lines = parsed.data, parsed.lines
    found: dict[tuple[int, int], Definition] = {}
    clauses: dict[tuple[int, int], Any] = {}
    marks: set[int] = set()  # rows of `@test` marks: `#[test]`, `#[cfg(test)]`, Zig `test`
    whole = False  # a `@test.file` mark: the file is test code (Rust's `#![cfg(test)]`)
    try:
        for captures in query_matches(query, parsed.tree, len(data), parsed.deadline):
            marks.update(n.start_point.row + 1 for n in captures.get("test", ()))
            whole = whole or "test.file" in captures
            _add(found, clauses, captures, lines, data)
    except ParseFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - the binding raises assorted errors
        raise ParseFailed(f"{type(exc).__name__}: {exc}") from None
    _join_clauses(found, list(clauses.values()))
    rows = sorted(marks)
    for d in found.values():  # a mark among the lines a definition starts with
        at = bisect.bisect_left(rows, d.start_line)
        d.test = whole or (at < len(rows) and rows[at] <= d.def_line)
    return _apart(sorted(found.values(), key=lambda d: (d.span[0], -d.span[1])))


def _apart(ordered: list[Definition]) -> list[Definition]:
    """Definitions in source order, none starting on the lines of one before it: what a
    definition takes from above (comments, attributes) stops at the last line of an
    earlier definition that is not around it. Elixir's `@callback` lines are both
    attributes and definitions, and each took the callbacks above it as its own."""
    ended: list[tuple[int, int]] = []  # (end byte, end line) of definitions not yet passed
    last = 0  # the last line of every definition ending before the current one starts
    for d in ordered:
        while ended and ended[0][0] <= d.span[0]:
            last = max(last, heapq.heappop(ended)[1])
        if d.start_line <= last < d.def_line:
            d.start_line = last + 1
        heapq.heappush(ended, (d.span[1], d.end_line))
    return ordered


def _add(found: dict[tuple[int, int], Definition], clauses: dict[tuple[int, int], Any],
         captures: dict[str, list[Any]], lines: list[str], data: bytes) -> None:
    """One match: its clauses, or its definition when not seen yet (windows repeat some)."""
    if "clause" in captures:
        clauses.update(((n.start_byte, n.end_byte), n) for n in captures["clause"])
        return
    node = next((nodes[0] for key, nodes in captures.items()
                 if key.startswith("definition.")), None)
    names = captures.get("name")
    if node is None or not names:
        return
    kind = next(key for key in captures if key.startswith("definition.")).split(".", 1)[1]
    key = (node.start_byte, node.end_byte)
    # A variable is the plainest reading of a node: another pattern naming it wins
    # (Kotlin's `val Queue.label get() = name` is a function, whichever match comes first).
    if key not in found or (found[key].kind == "variable" and kind != "variable"):
        found[key] = _definition(node, kind, names[0], lines, data)
    if captures.get("qualifier") and not found[key].qualifier:  # any pattern may give it
        found[key].qualifier = _qualifier(_text(captures["qualifier"][0], data))


def _qualifier(text: str) -> str:
    """`Foo.prototype` -> `Foo`: a member of a prototype is a method of the type."""
    return "".join(text.split()).removesuffix(".prototype")


def _join_clauses(found: dict[tuple[int, int], Definition], clauses: list[Any]) -> None:
    """Grow each definition over the `@clause`s that continue it (Haskell equations,
    Elixir function clauses): a clause belongs to the definition or clause right before it."""
    owners = dict(found)
    for clause in sorted(clauses, key=lambda n: n.start_byte):
        before = clause.prev_named_sibling
        owner = owners.get((before.start_byte, before.end_byte)) if before else None
        if owner is None or (clause.start_byte, clause.end_byte) in found:
            continue
        owner.end_line = max(owner.end_line, _last_row(clause, clause.start_point.column) + 1)
        owner.cuts = sorted({*owner.cuts, clause.start_point.row + 1, *_cuts(clause)})
        owner.span = (owner.span[0], max(owner.span[1], clause.end_byte))
        owners[(clause.start_byte, clause.end_byte)] = owner


def _text(node: Any, data: bytes) -> str:
    """A node's source, sliced from `data`: `Node.text` reads it through the read callback."""
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _unquoted(name: str) -> str:
    """A name captured as a string literal (a Zig test's, a Jest test's) without its
    quotes."""
    return name[1:-1] if len(name) >= 2 and name[0] == name[-1] and name[0] in "\"'`" \
        else name


def _definition(node: Any, kind: str, name: Any, lines: list[str], data: bytes) -> Definition:
    outer = node
    while outer.parent is not None and outer.parent.type in _WRAPPERS:
        outer = outer.parent
    start = outer.start_point.row
    column = outer.start_point.column
    above = _above(outer, column, data)
    # A comment after code on its line (`X = 1  # why`) belongs to that code, not below.
    while above is not None and _is_attached(above) and \
            _adjoins(above, start, start == outer.start_point.row, lines, data) \
            and not lines[above.start_point.row][: above.start_point.column].strip():
        start = above.start_point.row
        above = above.prev_named_sibling
    first = _own_first_leaf(node)
    def_line = first.start_point.row + 1
    end = _last_row(node, node.start_point.column) + 1
    head = max(first.start_byte - first.start_point.column, outer.start_byte)
    return Definition(kind, _unquoted(_text(name, data)), start + 1, def_line, max(end, def_line),
                      signature(node, name, head, lines, data), _cuts(node),
                      (node.start_byte, node.end_byte))


def _adjoins(above: Any, start: int, nearest: bool, lines: list[str], data: bytes) -> bool:
    """Whether a comment or decorator ending above row `start` belongs to what is there:
    when it ends on the row just above, or, for the doc block nearest the definition
    (`/** ... */`), a blank row above — Express and many JSDoc styles leave one."""
    if above.end_point.row >= start - 1:
        return True
    if not nearest or above.end_point.row != start - 2 or lines[start - 1].strip():
        return False
    text = _text(above, data)
    return text.startswith("/**") and not text.startswith("/**/") and \
        _FILE_DOC.search(text) is None


def _is_attached(node: Any) -> bool:
    return any(word in node.type for word in _ATTACHED)


def _above(outer: Any, column: int, data: bytes) -> Any:
    """The node right above a definition that may document it, looking past two grammar
    habits: a body's leading comment kept outside the body (Ruby, Haskell), and a comment
    kept inside the node before it (Kotlin and Haskell imports, Scala indented blocks)."""
    above = outer.prev_named_sibling
    if above is None and outer.parent is not None and \
            outer.parent.start_byte == outer.start_byte:
        above = outer.parent.prev_named_sibling
    last = above
    while last is not None and not _is_attached(last) and last.named_child_count:
        last = last.named_children[-1]
    if last is not None and last != above and _is_attached(last) and \
            last.start_point.column <= column and \
            not data[last.end_byte : outer.start_byte].strip():
        return last
    return above


def _last_row(node: Any, column: int) -> int:
    """The 0-based row where a definition's code ends: not on the comments closing it that
    are indented no deeper than it (they document what follows: Scala's indented blocks
    keep them), nor on the next line's indentation a block may end on."""
    last = node
    while last.child_count:
        kids = [c for c in last.children if c.end_byte > c.start_byte and not (
            "comment" in c.type and c.start_point.column <= column)]
        if not kids:
            break
        last = kids[-1]
    row = int(last.end_point.row)
    if last.end_point.column == 0 and row > node.start_point.row:
        row -= 1  # a token that ends with its newline
    return row


def _own_first_leaf(node: Any) -> Any:
    """A definition's first token after its own attributes and annotations (Java's
    `@Override`, C#'s `[Obsolete]` and TypeScript's decorators are inside it)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current is not node and _is_attached(current):
            continue
        if current.child_count == 0:
            return current
        stack.extend(reversed(current.children))
    return node


def _cuts(node: Any) -> list[int]:
    """Lines after the definition's first where the statements of its body start.

    The body is the `body` field, else the largest child, looked for a few levels down
    until its children start on different lines: `const f = () => {...}` is declaration >
    declarator > arrow function > body; Go's block, Swift's and Kotlin's bodies hold one
    statement list.
    """
    body = node
    for _ in range(BODY_DEPTH):
        inner = body.child_by_field_name("body")
        if inner is None:
            named = [c for c in body.named_children if c.end_byte - c.start_byte > 0]
            inner = max(named, key=lambda c: c.end_byte - c.start_byte, default=None)
        if inner is None:
            break
        body = inner
        if len({child.start_point.row for child in body.named_children}) > 1:
            break
    first = node.start_point.row + 1
    return sorted({child.start_point.row + 1 for child in body.named_children} - {first})
