"""Which store an index, watch or forget request writes, and how a new one is made.

A person's paths are absolute without `..` (the CLI resolves what was typed; the
daemon's own folder means nothing to the caller). The store is the one `--store` names
(a registered name, a store or project folder: the scope resolver's meaning, or a new
folder for a new store), else the `.semlith` at or above the first path, else a
registered store whose root holds it, else a new `.semlith` beside the first path. An
agent names only served stores, and its paths resolve inside a served root.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from semlith.base.folders import check_new_root, check_request_path
from semlith.base.settings import Settings
from semlith.embed.text import DEFAULT_MODEL
from semlith.errors import BadTarget, StoreNotFound, UnknownStore
from semlith.local.scope import Known, inside, resolve, roots_holding
from semlith.store import Store
from semlith.store.locate import STORE_DIRNAME, find_store
from semlith.types import Scope


@dataclass(frozen=True, slots=True)
class IndexTarget:
    folder: Path  # the store folder
    root: Path  # the root a new store gets
    paths: list[Path]  # the request's paths, resolved


def index_target(known: list[Known], raw: Sequence[str], selector: str | None, *,
                 agent: bool) -> IndexTarget:
    """The store (and paths) an index request of a person, or an `agent`, addresses."""
    if agent:
        return _agent_target(known, [Path(p) for p in raw], selector)
    paths = [check_request_path(p) for p in raw]
    first = (paths[0] if paths else Path.cwd()).resolve()
    resolved = [p.resolve() for p in paths]
    if selector:
        try:
            (chosen,) = resolve(Scope((selector,)), known, registered_only=False,
                                fallback_all=False).stores[:1]
            return IndexTarget(chosen.folder, first, resolved)
        except (UnknownStore, ValueError):
            if Path(selector).name in {"", "."} or not _pathlike(selector):
                raise
            return IndexTarget(Path(selector).expanduser().resolve(), first, resolved)  # new
    above = find_store(first) if first.exists() else None
    if above is not None:
        return IndexTarget(above, first, resolved)
    holding = roots_holding(first, known)
    if holding:
        return IndexTarget(holding[0].folder, first, resolved)
    return IndexTarget(first / STORE_DIRNAME, first, resolved)


def _agent_target(known: list[Known], paths: list[Path], selector: str | None
                  ) -> IndexTarget:
    """An agent indexes only inside a served root: paths are relative to it."""
    chosen = list(resolve(Scope((selector,)) if selector else Scope(("*",)), known,
                          registered_only=True, fallback_all=False).stores)
    for store in chosen:
        if store.root is None:
            continue
        root = store.root.resolve()
        resolved = [(p if p.is_absolute() else root / p).resolve() for p in paths]
        if all(inside(p, root) for p in resolved) and (paths or len(chosen) == 1):
            return IndexTarget(store.folder, root, resolved)
    roots = ", ".join(f"{k.name}: {k.root}" for k in chosen)
    if not paths:
        raise UnknownStore(f"name the store; the stores are: {roots}")
    raise BadTarget(f"{', '.join(map(str, paths))} is not inside a served root ({roots})")


class Creator:
    """Makes the new store of an index request, and remembers whether it did."""

    def __init__(self, settings: Settings, target: IndexTarget, dim_of: Callable[[str], int],
                 model: str | None = None, backend: str | None = None,
                 allow_system: bool = False) -> None:
        self.settings = settings
        self.target = target
        self.dim_of = dim_of  # a new store needs its model's dimension
        self.model = model
        self.backend = backend
        self.allow_system = allow_system
        self.called = False

    def __call__(self) -> Store:
        self.called = True
        root = self.target.root
        if not root.is_dir():
            raise StoreNotFound(f"{str(root)!r} is not a folder; index a folder to "
                                "create a store")
        check_new_root(root, allow_system=self.allow_system)
        name = self.model or DEFAULT_MODEL
        return Store.create(self.target.folder, model=name, dim=self.dim_of(name),
                            settings=self.settings, root=root, backend=self.backend)


def _pathlike(selector: str) -> bool:
    return "/" in selector or "\\" in selector or selector.startswith((".", "~"))
