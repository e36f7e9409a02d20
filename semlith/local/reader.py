"""`read` and `outline` for `LocalLibrary`: the lines a tool printed (or a symbol's
definition), and a file's definitions.

A mixin over the library's stores (`source`, `_reading`): a target is parsed once
(`local/locators.py`), placed in the store that holds it, and read through
`local/reads.py`.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from semlith.errors import BadTarget, Hint, UnknownSymbol
from semlith.local.locators import Target, parse_target
from semlith.local.reads import (
    chunk_passage,
    file_passage,
    posix,
    relative_to_root,
    with_symbol,
)
from semlith.local.scope import Known, roots_holding
from semlith.local.sources import Opened, StoreSource
from semlith.types import Definition, Passage, Scope


class _Host(Protocol):
    source: StoreSource

    def _reading(self, scope: Scope, known: list[Known] | None = None
                 ) -> contextlib.AbstractContextManager[tuple[Opened, str]]: ...


class Reader:
    """`read` and `outline` for a library (`_Host` says what it needs of it)."""

    def read(self: _Host, target: str, *, scope: Scope = Scope(), max_lines: int = 400,
             include_image: bool = False) -> Passage:
        known = self.source.known()
        parsed, scope = _parsed(target, scope, known)
        with self._reading(scope, known) as (opened, _):
            for label, store in opened:
                corpus, path = store.corpus, posix(parsed.path)
                if not corpus.reads_files:  # its files are on the machine that indexes it
                    records = corpus.file_records(path)
                    if records:
                        return chunk_passage(label, parsed, records, max_lines)
                elif corpus.file(path) is not None:
                    return file_passage(label, store, parsed, max_lines, include_image)
            nearest = ""
            if parsed.start is None and not parsed.absolute:
                try:
                    from semlith.search.symbols import named_definition

                    hit = named_definition(opened, target)
                except UnknownSymbol as exc:  # `Nonexistent.save`: say what is near
                    hit, nearest = None, f" ({exc})"
                if hit is not None:
                    store = dict(opened)[hit.store]
                    passage = file_passage(hit.store, store, Target(
                        hit.store, hit.path, hit.start_line, hit.end_line), max_lines)
                    return with_symbol(passage, hit.qualname or hit.name)
        raise BadTarget(f"{parsed.path!r} is neither an indexed file nor a symbol{nearest}",
                        hint=Hint.FIND)


    def outline(self: _Host, target: str, *, scope: Scope = Scope()) -> list[Definition]:
        known = self.source.known()
        parsed, scope = _parsed(target, scope, known)
        with self._reading(scope, known) as (opened, _):
            for label, store in opened:
                path = posix(parsed.path)
                if store.corpus.file(path) is not None:
                    return [replace(d, store=label) for d in
                            store.corpus.file_definitions(path)]
        raise BadTarget(f"{parsed.path!r} is not an indexed file", hint=Hint.LIST_FILES)


def _parsed(target: str, scope: Scope, known: list[Known]) -> tuple[Target, Scope]:
    """A target parsed, and the scope it names (a store prefix or an absolute path's
    holder) or `scope`."""
    parsed = parse_target(target, frozenset(k.name for k in known))
    if parsed.store:
        return parsed, Scope((parsed.store,))
    if parsed.absolute:
        holder = holder_of(Path(parsed.path), known)
        return Target(holder.name, relative_to_root(Path(parsed.path), holder),
                      parsed.start, parsed.end), Scope((holder.name,))
    return parsed, scope


def holder_of(path: Path, known: list[Known]) -> Known:
    """The store whose root holds `path` (BadTarget naming the roots when none does)."""
    holding = roots_holding(path, known)
    if not holding:
        raise BadTarget(f"{str(path)!r} is not inside an indexed root; the roots are: "
                        + ", ".join(f"{k.name}: {k.root}" for k in known if k.root))
    return holding[0]
