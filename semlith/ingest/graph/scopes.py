"""The definitions of a file as scopes: qualnames, containment, and the innermost
definition around a byte offset (a call's caller, a local's scope)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from semlith.ingest.definitions import METHOD_OWNERS, Definition
from semlith.ingest.graph.records import MODULE, Contain
from semlith.ingest.plan import nest


class Scopes:
    """`find_definitions`' output nested the way the chunker nests it, so that the
    qualnames here (`Outer.inner`) are the `symbols.qualname`s the chunker records."""

    def __init__(self, definitions: Sequence[Definition]) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.qualnames: list[str] = []
        self.names: list[str] = []
        self.kinds: list[str] = []
        self.lines: list[int] = []
        self.parents: list[int] = []
        self.contains: list[Contain] = []
        stack: list[tuple[Definition, int, str]] = [
            (root, -1, "") for root in reversed(nest(definitions))]
        while stack:  # preorder, so `starts` stays sorted (nest keeps source order)
            d, parent, prefix = stack.pop()
            # `proto.handle = function () {}` is `proto.handle`, as the chunker names it
            qualname = f"{prefix}.{d.qualified_name}" if prefix else d.qualified_name
            self.contains.append(Contain(self.qualname(parent), qualname, d.kind, d.def_line))
            index = len(self.starts)
            self.starts.append(d.span[0])
            self.ends.append(d.span[1])
            self.qualnames.append(qualname)
            self.names.append(d.name)
            self.kinds.append(d.kind)
            self.lines.append(d.def_line)
            self.parents.append(parent)
            stack.extend((child, index, qualname) for child in reversed(d.children))

    def qualname(self, index: int) -> str:
        return self.qualnames[index] if index >= 0 else MODULE

    def innermost(self, offset: int) -> int:
        """The index of the innermost definition holding byte `offset`, or -1.

        Spans nest, so the last definition starting at or before `offset` holds it or
        one of its ancestors does: a walk up, not a scan.
        """
        index = bisect.bisect_right(self.starts, offset) - 1
        while index >= 0 and not self.starts[index] <= offset < self.ends[index]:
            index = self.parents[index]
        return index

    def binding_scope(self, offset: int, name: str, line: int) -> int:
        """The scope of a binding at `offset`: the innermost definition, unless that is
        the binding itself (a constant `X = Foo()`, a Java `static final` field)."""
        index = self.innermost(offset)
        while index >= 0 and self.names[index] == name and self.lines[index] == line:
            index = self.parents[index]
        return index

    def enclosing_class(self, index: int) -> int:
        """The nearest class-like definition at or above `index` (a field's owner), or -1.
        A module or namespace owns no fields."""
        while index >= 0 and self.kinds[index] not in METHOD_OWNERS:
            index = self.parents[index]
        return index

    def is_class_like(self, index: int) -> bool:
        return index >= 0 and self.kinds[index] in METHOD_OWNERS

    def named(self, offset: int, name: str) -> str:
        """The qualname of the definition called `name` around `offset` (a class whose
        bases are being read), else `name` itself."""
        index = self.innermost(offset)
        while index >= 0 and self.names[index] != name:
            index = self.parents[index]
        return self.qualnames[index] if index >= 0 else name
