"""The daemon's wiring, written once for `semlith serve` and the stdio proxy's fallback:
one engine, a fleet holding the stores, and the two libraries over it (the agents' and
the person's, docs/architecture.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from semlith.base.home import registered_stores
from semlith.base.settings import Settings
from semlith.embed.text import Embedder
from semlith.local.engine import Engine
from semlith.local.fleet import Fleet
from semlith.local.library import LocalLibrary
from semlith.local.scope import resolve
from semlith.local.sources import registered_known
from semlith.types import Scope


@dataclass
class Served:
    engine: Engine
    fleet: Fleet
    agent: LocalLibrary  # for the MCP tools: registered stores only, paths inside roots
    person: LocalLibrary  # for /api: the CLI of the person who runs the daemon

    def close(self) -> None:
        self.fleet.close()
        self.engine.close()


def serve_stores(settings: Settings, named: Sequence[str] = (), *,
                 embedder_factory: Callable[[str], Embedder] | None = None) -> Served:
    """Hold every registered store (following the registry), or only the ones `named`
    (as `--store` names stores: a registered name, a store or project folder)."""
    engine = Engine(settings, embedder_factory)
    try:
        folders = chosen_folders(settings, named)
        fleet = Fleet(engine, follow_registry=not named)
        fleet.open(folders)
    except BaseException:
        engine.close()
        raise
    return Served(engine, fleet, LocalLibrary(settings, engine=engine, source=fleet, agent=True),
                  LocalLibrary(settings, engine=engine, source=fleet))


def chosen_folders(settings: Settings, named: Sequence[str]) -> list[Path]:
    """The store folders `semlith serve [STORE...]` holds: every registered one (those
    whose folder is gone too: they are reported as not served), or the ones named."""
    if not named:
        return [Path(e.folder) for e in registered_stores(settings.home)]
    scope = Scope(tuple(named))
    return [k.folder for k in resolve(scope, registered_known(settings), registered_only=False,
                                      fallback_all=False).stores]
