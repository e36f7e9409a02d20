"""User state under SEMLITH_HOME: the store registry, the agent key, daemon discovery.

Every file is written to a temp file and renamed, and secrets and the discovery file
are created with mode 0600 (owner only), so a crash never leaves a torn file and no
other user can read the key. The folder itself is 0700 (made so on every write).
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from semlith.base.oslock import held
from semlith.base.private import make_private_folder

REGISTRY = "stores.json"
AGENT_KEY = "agent.key"
CONTROL_KEY = "control.key"
PORTAL_KEY = "portal.key"
DISCOVERY = "daemon.json"
DAEMON_LOG = "daemon.log"


def _write_private(path: Path, text: str) -> None:
    """Atomically replace `path` with `text`, readable by the owner only."""
    make_private_folder(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


@dataclass(frozen=True, slots=True)
class RegisteredStore:
    """A store's line in SEMLITH_HOME/stores.json (`types.StoreEntry` is what `stores`
    answers about it)."""

    folder: str  # the store folder (absolute)
    root: str  # the folder it indexes
    model: str
    name: str


def registered_stores(home: Path) -> list[RegisteredStore]:
    """Stores `semlith index` has written, in registration order (missing ones included)."""
    try:
        data = json.loads((home / REGISTRY).read_text())
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise ValueError(f"{str(home / REGISTRY)!r} is unreadable ({exc}); "
                         "fix or delete it, then index again") from None
    return [RegisteredStore(**{k: str(e.get(k, "")) for k in ("folder", "root", "model", "name")})
            for e in data.get("stores", []) if isinstance(e, dict) and e.get("folder")]


_REGISTERING = threading.Lock()  # two index runs of one process register one at a time


def register_store(home: Path, entry: RegisteredStore,
                   rename: Callable[[str], None] | None = None) -> RegisteredStore:
    """Add or update a store in the registry (keyed by its folder); returns its line.

    With `rename`, a name another registered store holds is not taken twice: the store
    gets the first free one (`free_name`), `rename(name)` is called, and that name is
    recorded. Read-modify-write under a cross-process lock on `stores.json.lock`: eight
    `semlith index` runs registering at once kept 7, 3 and 6 of their 8 entries without
    it (#25), and eight runs of folders named `app` that chose their names before taking
    it were named `app` twice, `app-2` twice and `app-4` three times (#47).
    """
    make_private_folder(home)
    with _REGISTERING, held(home / (REGISTRY + ".lock")):
        current = registered_stores(home)
        if rename is not None:
            name, holder = _free(current, Path(entry.folder), entry.name)
            if holder:
                rename(name)
                entry = replace(entry, name=name)
        entries = [e for e in current if e.folder != entry.folder]
        entries.append(entry)
        _write_private(home / REGISTRY, json.dumps(
            {"stores": [asdict(e) for e in entries]}, indent=2) + "\n")
    return entry


def free_name(home: Path, folder: Path, wanted: str) -> tuple[str, str]:
    """A name for the store at `folder` that no other registered store has: `wanted`, or
    `wanted-2`, `wanted-3`...; and the folder of the store that has `wanted` ('' when
    none does). Names are unique on the machine so `--store NAME` means one store.
    (A name to keep is chosen by `register_store`, under the registry's lock.)"""
    return _free(registered_stores(home), folder, wanted)


def _free(entries: list[RegisteredStore], folder: Path, wanted: str) -> tuple[str, str]:
    others = {e.name: e.folder for e in entries
              if Path(e.folder).resolve() != folder.resolve()}
    if wanted not in others:
        return wanted, ""
    n = 2
    while f"{wanted}-{n}" in others:
        n += 1
    return f"{wanted}-{n}", others[wanted]


def agent_key(home: Path) -> str:
    """The key agents present as `Authorization: Bearer <key>`; minted on first use."""
    return _key(home / AGENT_KEY)


def control_key(home: Path) -> str:
    """The key of the person's own processes (the CLI) for the daemon's `/api`: it can
    index and forget any folder, so agents, which get the agent key, never see it."""
    return _key(home / CONTROL_KEY)


def portal_key(home: Path) -> str:
    """The key `semlith portal` signs its one-time links with (semlith/server/portal/session.py):
    a third credential, so a portal link never carries the agent or the control key."""
    return _key(home / PORTAL_KEY)


def _key(path: Path) -> str:
    try:
        key = path.read_text().strip()
        if key:
            return key
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(32)
    _write_private(path, key + "\n")
    return key


@dataclass(frozen=True, slots=True)
class Discovery:
    pid: int
    port: int
    version: str
    started: float

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def pid_alive(pid: int) -> bool:
    """Whether process `pid` still runs (an exited zombie does not). A process whose
    status cannot be read is alive: macOS refuses the status of a process that is
    exiting, and `semlith stop` used to return while the daemon was still shutting
    down (issue #23)."""
    import psutil

    try:
        return bool(psutil.pid_exists(pid)) and psutil.Process(pid).status() != "zombie"
    except psutil.NoSuchProcess:  # gone, or a zombie (ZombieProcess is one)
        return False
    except psutil.AccessDenied:
        return True


def read_discovery(home: Path) -> Discovery | None:
    """The running daemon's discovery record; None when absent, unreadable or stale."""
    try:
        data: dict[str, Any] = json.loads((home / DISCOVERY).read_text())
        found = Discovery(int(data["pid"]), int(data["port"]), str(data["version"]),
                          float(data["started"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return found if pid_alive(found.pid) else None


def write_discovery(home: Path, port: int, version: str) -> Discovery:
    found = Discovery(os.getpid(), port, version, time.time())
    _write_private(home / DISCOVERY, json.dumps(asdict(found)) + "\n")
    return found


def clear_discovery(home: Path) -> None:
    """Remove the discovery file if it is this process's."""
    path = home / DISCOVERY
    try:
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError):
        pass
