"""`semlith doctor`: what is wrong with this installation, and the one-line fix for each.

Each check returns `Finding`s; a finding with a `fix` is a fault (the command exits 1).
The checks read state and never change it: the installation, the default model (loaded
and asked to embed a word), the daemon and its version, the key files' permissions,
each MCP client's config that names semlith, and each registered store.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semlith.base.settings import Settings
from semlith.base.version import __version__
from semlith.embed.text import DEFAULT_MODEL, Embedder
from semlith.types import counted

MIN_FREE_DISK = 200 << 20  # below this, an index run may fail mid-way
POSIX = os.name == "posix"


@dataclass(frozen=True, slots=True)
class Finding:
    check: str  # install, model, daemon, keys, client NAME, store NAME
    detail: str
    fix: str = ""  # the command or step that fixes it; empty: nothing is wrong

    @property
    def fault(self) -> bool:
        return bool(self.fix)


def diagnose(settings: Settings, load: Callable[[str], Embedder] | None = None
             ) -> list[Finding]:
    """Every finding, in the order a person fixes them. `load` loads a text model by
    name (default: as the index does; tests pass a deterministic one)."""
    if load is None:
        from semlith.embed.models import load_embedder

        def load(name: str) -> Embedder:
            return load_embedder(name, home=settings.home, models_dir=settings.models_dir)
    checks: list[Callable[[], Iterator[Finding]]] = [
        _install, lambda: _model(load), lambda: _daemon(settings),
        lambda: _keys(settings.home), lambda: _clients(settings.port),
        lambda: _stores(settings)]
    return [finding for check in checks for finding in check()]


def _install() -> Iterator[Finding]:
    detail = f"semlith {__version__}, Python {sys.version.split()[0]} ({sys.executable})"
    missing = [name for name in ("onnxruntime", "tree_sitter", "watchdog", "uvicorn")
               if not _importable(name)]
    if missing:
        yield Finding("install", f"{detail}; cannot import {', '.join(missing)}",
                      "pip install --force-reinstall semlith")
    else:
        yield Finding("install", detail)


def _importable(name: str) -> bool:
    import importlib

    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def _model(load: Callable[[str], Embedder]) -> Iterator[Finding]:
    from semlith.errors import SemlithError

    try:
        dim = len(load(DEFAULT_MODEL).embed_query("doctor"))
    except (SemlithError, OSError, RuntimeError, ValueError) as exc:
        yield Finding("model", f"{DEFAULT_MODEL} does not load: {_first_line(exc)}",
                      f"semlith models --build {DEFAULT_MODEL}")
        return
    yield Finding("model", f"{DEFAULT_MODEL} loads and embeds ({dim} dimensions)")


def _daemon(settings: Settings) -> Iterator[Finding]:
    import httpx

    from semlith.base.home import read_discovery

    found = read_discovery(settings.home)
    if found is None:
        yield Finding("daemon", "not running (`semlith serve` starts it; `semlith mcp` "
                      "starts one when an editor connects)")
        return
    try:
        version = httpx.get(f"{found.url}/healthz", timeout=3).json()["version"]
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        yield Finding("daemon", f"pid {found.pid} does not answer on port {found.port}",
                      f"stop process {found.pid}, then `semlith serve`")
        return
    if version != __version__:
        yield Finding("daemon", f"pid {found.pid} runs semlith {version}, this is "
                      f"{__version__}", "semlith stop && semlith serve")
        return
    yield Finding("daemon", f"pid {found.pid} on port {found.port}, semlith {version}")


def _keys(home: Path) -> Iterator[Finding]:
    from semlith.base.home import AGENT_KEY, CONTROL_KEY

    for name in (AGENT_KEY, CONTROL_KEY):
        path = home / name
        if not path.exists():
            continue
        if POSIX and path.stat().st_mode & 0o077:
            yield Finding("keys", f"{path} is readable by other users "
                          f"(mode {path.stat().st_mode & 0o777:o})", f"chmod 600 {path}")
        else:
            yield Finding("keys", f"{path} is private")


def _clients(port: int) -> Iterator[Finding]:
    """Each client config that names semlith: does it start this installation's
    `semlith mcp` (by whatever path: a symlink to the same script counts)?"""
    from semlith.setup import clients

    launch = clients.locate()
    for client in clients.CLIENTS:
        path = clients.config_path(client, clients.Places.here())
        if path is None:
            continue  # kept in the client's settings: nothing to read
        detail = _client(path, client, launch)
        if detail is None:
            continue
        check, fix = f"client {client.name}", f"semlith setup {client.name} --write"
        if detail.startswith("cannot be read:"):
            yield Finding(check, f"{path} {detail}", f"fix or move aside {path}, then "
                          f"`{fix}`")
        elif detail:
            yield Finding(check, f"{path} {detail}", fix)
        else:
            yield Finding(check, f"{path} has semlith's entry")


def _client(path: Path, client: Any, launch: Any) -> str | None:
    """What is wrong with semlith's entry in `path` ("" nothing); None when the file
    names no semlith."""
    from semlith.setup.clients import entry_in
    from semlith.setup.configfile import parse
    from semlith.setup.launch import argv_of, is_http, problem

    try:
        data = parse(path.read_text(encoding="utf-8-sig"), client.syntax, path)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeError, ValueError) as exc:
        return f"cannot be read: {_first_line(exc)}"
    entry = entry_in(client, data)
    if entry is None:
        return None
    return "" if is_http(entry) else problem(argv_of(entry), launch)


def _stores(settings: Settings) -> Iterator[Finding]:
    from semlith.base.home import registered_stores

    try:
        entries = registered_stores(settings.home)
    except ValueError as exc:
        yield Finding("stores", str(exc), f"move aside {settings.home / 'stores.json'}, "
                      "then index each folder again")
        return
    for entry in entries:
        yield _store(Path(entry.folder), entry.name, entry.root, settings)


def _store(folder: Path, name: str, root: str, settings: Settings) -> Finding:
    from semlith.base.home import pid_alive
    from semlith.errors import SemlithError
    from semlith.store import Store
    from semlith.store.lock import describe_holder, read_holder

    check = f"store {name}"
    if not folder.exists():
        return Finding(check, f"{folder} is gone", f"semlith index {root} (or ignore it: "
                       "a gone store is not served)")
    if POSIX and folder.stat().st_mode & 0o077:
        return Finding(check, f"{folder} is open to other users "
                       f"(mode {folder.stat().st_mode & 0o777:o})", f"chmod -R go-rwx {folder}")
    try:
        with Store.open(folder, settings=settings) as store:
            counts = store.stats()
    except (SemlithError, OSError, ValueError) as exc:
        return Finding(check, f"{folder} does not open: {_first_line(exc)}",
                       f"rm -r {folder} && semlith index {root}")
    free = shutil.disk_usage(folder).free
    if free < MIN_FREE_DISK:
        return Finding(check, f"{free >> 20} MB free on its disk", "free disk space")
    detail = f"{counted(counts['files'], 'file')}, {counted(counts['chunks'], 'chunk')}"
    if counts.get("pending_chunks"):
        detail += f", {counts['pending_chunks']} not embedded yet (`semlith index {root}`)"
    holder = read_holder(folder)
    if holder and pid_alive(int(holder.get("pid", 0))):
        detail += f"; written by {describe_holder(holder)}"
    return Finding(check, detail)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]
