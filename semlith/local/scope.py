"""Which stores a request addresses: names, folders, "*", or the stores around a folder.

One resolver for every adapter, so `--store`, `SEMLITH_STORE`, the MCP `stores`
argument and an editor's MCP roots mean the same thing everywhere:

- a store's registered name (`semlith stores` lists them);
- a store folder (the `.semlith` folder) or a project folder holding one;
- a folder inside a registered store's root (the deepest such root wins);
- "*": every store.

With no selector, the stores around the caller's folders (`near`): a `.semlith` at or
above one of them, registered stores whose root holds one, and registered stores inside
one (an editor opened on a monorepo). When none is found the call fails with a message
that says what to do: the CLI's names `--store`, an agent's the command that indexes
its folder and `stores: ["*"]` (issue #45; it used to search every store). With neither
selectors nor folders (an HTTP client that sends no roots), every store.

Agents name only registered stores (`registered_only`); a person at the CLI may also
name a store folder that was never registered.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from pathlib import Path

from semlith.errors import Hint, StoreNotFound, UnknownStore
from semlith.store import Store
from semlith.store.locate import STORE_DIRNAME, find_store
from semlith.types import Scope

ALL = "*"
NAMES_SHOWN = 8  # of the stores an agent's refusal lists (1,365 are registered somewhere)


@dataclass(frozen=True, slots=True)
class Known:
    """A store the resolver may choose: its label, its folder and (when known) its root."""

    name: str
    folder: Path
    root: Path | None = None
    base: str = ""  # the registered name, when `name` had to be made unique (`#2`)


@dataclass(frozen=True, slots=True)
class Resolved:
    stores: tuple[Known, ...]
    note: str = ""  # set when the scope fell back to every store


def unique_label(name: str, taken: Container[str]) -> str:
    """`name`, or `name#2`, `name#3`... : the first that is not `taken` (two stores of one
    name are told apart in every answer by this label)."""
    label, n = name, 2
    while label in taken:
        label, n = f"{name}#{n}", n + 1
    return label


def label_stores(entries: list[tuple[str, Path, Path | None]]) -> list[Known]:
    """Known stores from (name, folder, root), names made unique with `#2`, `#3`."""
    out: list[Known] = []
    labels: set[str] = set()
    for name, folder, root in entries:
        label = unique_label(name, labels)
        labels.add(label)
        out.append(Known(label, folder, root, name))
    return out


def resolve(scope: Scope, known: list[Known], *, registered_only: bool,
            fallback_all: bool) -> Resolved:
    """The stores `scope` addresses among `known`; UnknownStore/StoreNotFound otherwise."""
    if scope.stores:
        chosen: list[Known] = []
        for selector in scope.stores:
            for store in _select(selector, known, registered_only):
                if not any(_same(store.folder, c.folder) for c in chosen):
                    chosen.append(store)
        return Resolved(tuple(chosen))
    if not scope.near:  # nothing to go by: every store
        return Resolved(tuple(_select(ALL, known, registered_only)))
    around = _around([Path(p) for p in scope.near], known, registered_only)
    if around:
        return Resolved(tuple(around))
    if fallback_all and known:
        where = ", ".join(scope.near)
        note = f"no store indexes {where}; searched every store" if where else ""
        return Resolved(tuple(known), note)
    if not known:
        raise StoreNotFound(f"no store indexes {scope.near[0]} (none is indexed yet)",
                            hint=Hint.INDEX)
    if registered_only:  # an agent: the command that indexes its folder, or every store
        folder = f'"{scope.near[0]}"' if " " in scope.near[0] else scope.near[0]
        names = ", ".join(k.name for k in known[:NAMES_SHOWN]) + \
            (f" and {len(known) - NAMES_SHOWN} more" if len(known) > NAMES_SHOWN else "")
        raise StoreNotFound(f"no store indexes {', '.join(scope.near)}; `semlith index "
                            f'{folder}` indexes it, or pass stores: ["*"] for every store '
                            f"({names})")
    raise StoreNotFound(f"no store indexes {scope.near[0]}", hint=Hint.CHOOSE_STORE)


def _select(selector: str, known: list[Known], registered_only: bool) -> list[Known]:
    if selector == ALL:
        if not known:
            raise UnknownStore("no store is indexed yet", hint=Hint.INDEX)
        return list(known)
    same = [k for k in known if (k.base or k.name) == selector]
    if len(same) > 1:  # registered by an older semlith, before names were unique (#23)
        raise UnknownStore(f"the store name {selector} is ambiguous: "
                           f"{', '.join(str(k.folder) for k in same)}; pass one of those "
                           "folders as --store")
    named = [k for k in known if k.name == selector]
    if named:
        return named
    path = Path(selector).expanduser()
    if path.exists() and (path.is_absolute() or not registered_only):
        folder = _store_folder(path)
        if folder is not None:
            match = [k for k in known if _same(k.folder, folder)]
            if match:
                return match
            if not registered_only:
                return [Known(_name_of(folder), folder)]
        inside = roots_holding(path, known)
        if inside:
            return inside[:1]
        if not registered_only:
            above = find_store(path)
            if above is not None:
                return [Known(_name_of(above), above)]
    names = ", ".join(k.name for k in known) or "none yet"
    also = ' (or "*" for all)' if registered_only else \
        ' (or a store folder, a folder inside an indexed root, or "*" for all)'
    raise UnknownStore(f"unknown store {selector}; stores: {names}{also}")


def _around(near: list[Path], known: list[Known], registered_only: bool) -> list[Known]:
    # Each known root resolved once per call, not once per test (#25: 1,500 registered).
    roots = [(k, real) for k in known if k.root is not None
             and (real := _real(k.root)) is not None]
    found: list[Known] = []
    for folder in near:
        candidates: list[Known] = []
        if not registered_only:
            above = find_store(folder) if folder.exists() else None
            if above is not None:
                candidates += _at(above.resolve(), known) or [Known(_name_of(above), above)]
        here = _real(folder)
        if here is not None:
            holding = [k for k, real in roots if here.is_relative_to(real)]
            candidates += sorted(holding, key=lambda k: -len(str(k.root)))[:1]
            candidates += [k for k, real in roots if real.is_relative_to(here)]
        for candidate in candidates:
            if not any(_same(candidate.folder, f.folder) for f in found):
                found.append(candidate)
    return found


def _at(folder: Path, known: list[Known]) -> list[Known]:
    """The known stores at `folder` (resolved): compared as
    written first, as the registry records resolved folders; resolved when none is."""
    return [k for k in known if k.folder == folder] or \
        [k for k in known if _real(k.folder) == folder]


def _store_folder(path: Path) -> Path | None:
    if Store.exists(path):
        return path.resolve()
    if Store.exists(path / STORE_DIRNAME):
        return (path / STORE_DIRNAME).resolve()
    return None


def roots_holding(path: Path, known: list[Known]) -> list[Known]:
    """Known stores whose root is `path` or holds it, the deepest root first."""
    real = _real(path)  # once, not once per known store (#25: 1,500 registered)
    if real is None:
        return []
    holding = [k for k in known if k.root is not None and _holds(k.root, real)]
    return sorted(holding, key=lambda k: -len(str(k.root)))


def inside(path: Path, folder: Path) -> bool:
    real = _real(folder)
    return real is not None and _under(path, real)


def _under(path: Path, real_folder: Path) -> bool:
    """Whether `path` is inside `real_folder` (already resolved)."""
    real = _real(path)
    return real is not None and real.is_relative_to(real_folder)


def _holds(folder: Path, real_path: Path) -> bool:
    """Whether `folder` holds `real_path` (already resolved)."""
    real = _real(folder)
    return real is not None and real_path.is_relative_to(real)


def _real(path: Path) -> Path | None:
    try:
        return path.resolve()
    except OSError:
        return None


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _name_of(folder: Path) -> str:
    """A store's name before it is opened: its root's folder name."""
    return folder.parent.name if folder.name == STORE_DIRNAME else folder.name
