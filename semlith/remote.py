"""`RemoteLibrary`: the library of the running daemon, over its JSON API (`/api/*`).

Each method is one authenticated POST to `/api/<operation>` whose body is the method's
arguments and whose answer is the result's `as_json()` (semlith/types.py); an error is
`{"error": sentence, "kind": class name}` with status 400 and is raised here as the same
kind of error. `index` streams its progress as JSON lines. The API takes the control key
(`SEMLITH_HOME/control.key`), which agents never get: only the person's own processes
can ask the daemon to index or forget folders they name.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from threading import Event
from typing import Any

from semlith import errors
from semlith.base.home import Discovery, control_key
from semlith.base.settings import Settings
from semlith.library import OnEvent, OnProgress, OnSkip
from semlith.setup.inventory import Installation
from semlith.types import (
    Answer,
    Definition,
    FileEntry,
    Filters,
    IndexReport,
    Passage,
    Progress,
    Scope,
    SkipEntry,
    Status,
    StoreEntry,
    StoreStats,
    Watched,
    from_json,
)
from semlith.types.activity import Agents, Run
from semlith.types.graph import Brief, GraphPath, Impact, Neighbors
from semlith.types.grep import Matches

TIMEOUT = 600.0


def _error(kind: str, message: str, hint: object = None) -> Exception:
    """The exception a daemon error body names: the same class of semlith/errors.py (or
    the built-in), so a caller can tell them apart whether or not a daemon answered."""
    cls = getattr(errors, kind, None) if not kind.startswith("_") else None
    if isinstance(cls, type) and issubclass(cls, errors.SemlithError):
        return cls(message, hint=str(hint or ""))
    if isinstance(cls, type) and issubclass(cls, ValueError):
        return cls(message)
    builtin = {"ValueError": ValueError, "PermissionError": PermissionError}.get(kind)
    return builtin(message) if builtin is not None else errors.DaemonError(message)


def _here(paths: Sequence[str]) -> list[str]:
    """The paths of a request, the caller's folder when none: the daemon's own folder
    means nothing to the caller."""
    return list(paths) or [os.getcwd()]


class RemoteLibrary(Installation):
    """`semlith.library.Library` answered by the daemon that `found` describes."""

    def __init__(self, settings: Settings, found: Discovery) -> None:
        self.settings = settings
        self.found = found
        self.key = control_key(settings.home)

    @classmethod
    def connect(cls, settings: Settings) -> RemoteLibrary | None:
        """The running daemon's library, or None when no daemon answers."""
        from semlith.daemon_client import running

        found = running(settings)
        return None if found is None else cls(settings, found)

    def close(self) -> None:
        pass

    # -- transport ------------------------------------------------------------------------

    def _open(self, op: str, body: dict[str, Any] | None, timeout: float) -> Any:
        request = urllib.request.Request(
            f"{self.found.url}/api/{op}", method="POST" if body is not None else "GET",
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.key}",
                     "Content-Type": "application/json"})
        try:
            return urllib.request.urlopen(request, timeout=timeout)
        except urllib.error.HTTPError as exc:
            try:
                answer = json.loads(exc.read() or b"{}")
            except ValueError:
                answer = {}
            message = answer.get("error") or f"the daemon answered HTTP {exc.code}"
            raise _error(str(answer.get("kind", "")), message, answer.get("hint")) from None
        except (urllib.error.URLError, OSError) as exc:
            raise errors.DaemonError(f"the daemon on port {self.found.port} did not answer "
                              f"({exc})") from None

    def _call(self, op: str, body: dict[str, Any] | None = None,
              timeout: float = TIMEOUT) -> Any:
        with self._open(op, body, timeout) as response:
            return json.loads(response.read() or b"null")

    def _stream(self, op: str, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        with self._open(op, body, TIMEOUT) as response:
            for line in response:
                if line.strip():
                    yield json.loads(line)

    # -- the library ----------------------------------------------------------------------

    def search(self, query: str, *, k: int = 10, filters: Filters = Filters(),
               scope: Scope = Scope(), image: str | None = None) -> Answer:
        body = {"query": query, "k": k, "filters": filters.as_json(), "scope": scope.as_json()}
        if image is not None:  # the daemon reads it: it runs as the same user
            body["image"] = str(Path(image).expanduser().resolve())
        return Answer.from_json(self._call("search", body))

    def grep(self, pattern: str, *, regex: bool = False, context: int = 0,
             before: int | None = None, after: int | None = None, limit: int = 100,
             files_only: bool = False, count: bool = False, filters: Filters = Filters(),
             scope: Scope = Scope()) -> Matches:
        return Matches.from_json(self._call("grep", {
            "pattern": pattern, "regex": regex, "context": context, "before": before,
            "after": after, "limit": limit, "files_only": files_only, "count": count,
            "filters": filters.as_json(), "scope": scope.as_json()}))

    def symbol(self, name: str, *, scope: Scope = Scope(), limit: int = 50
               ) -> list[Definition]:
        rows = self._call("symbol", {"name": name, "scope": scope.as_json(), "limit": limit})
        return [from_json(Definition, r) for r in rows]

    def read(self, target: str, *, scope: Scope = Scope(), max_lines: int = 400,
             include_image: bool = False) -> Passage:
        return from_json(Passage, self._call("read", {
            "target": target, "scope": scope.as_json(), "max_lines": max_lines,
            "include_image": include_image}))

    def neighbors(self, name: str, *, kinds: Sequence[str] = (), filters: Filters = Filters(),
                  all_edges: bool = False, budget: int = 4000, scope: Scope = Scope()
                  ) -> Neighbors:
        return Neighbors.from_json(self._call("neighbors", {
            "name": name, "kinds": list(kinds), "filters": filters.as_json(),
            "all_edges": all_edges, "budget": budget, "scope": scope.as_json()}))

    def impact(self, name: str, *, depth: int = 3, filters: Filters = Filters(),
               all_edges: bool = False, budget: int = 4000, scope: Scope = Scope()
               ) -> Impact:
        return Impact.from_json(self._call("impact", {
            "name": name, "depth": depth, "filters": filters.as_json(),
            "all_edges": all_edges, "budget": budget, "scope": scope.as_json()}))

    def path(self, source: str, target: str, *, filters: Filters = Filters(),
             all_edges: bool = False, budget: int = 4000, scope: Scope = Scope()
             ) -> GraphPath:
        return GraphPath.from_json(self._call("path", {
            "source": source, "target": target, "filters": filters.as_json(),
            "all_edges": all_edges, "budget": budget, "scope": scope.as_json()}))

    def brief(self, question: str, *, budget: int = 2000, scope: Scope = Scope()) -> Brief:
        return Brief.from_json(self._call("brief", {
            "question": question, "budget": budget, "scope": scope.as_json()}))

    def files(self, *, scope: Scope = Scope()) -> list[FileEntry]:
        return [from_json(FileEntry, r) for r in self._call("files",
                                                            {"scope": scope.as_json()})]

    def skipped(self, *, scope: Scope = Scope()) -> list[SkipEntry]:
        return [from_json(SkipEntry, r) for r in self._call("skipped",
                                                            {"scope": scope.as_json()})]

    def stats(self, *, scope: Scope = Scope()) -> list[StoreStats]:
        return [from_json(StoreStats, r) for r in self._call("stats",
                                                             {"scope": scope.as_json()})]

    def stores(self) -> list[StoreEntry]:
        return [from_json(StoreEntry, r) for r in self._call("stores", {})]

    def index(self, paths: Sequence[str] = (), *, store: str | None = None,
              model: str | None = None, backend: str | None = None,
              time_budget: float | None = None, on_progress: OnProgress | None = None,
              on_skip: OnSkip | None = None, allow_system: bool = False,
              verify: bool = False) -> IndexReport:
        body = {"paths": _here(paths), "store": store, "model": model, "backend": backend,
                "time_budget": time_budget, "skips": on_skip is not None,
                "allow_system": allow_system, "verify": verify}
        for item in self._stream("index", body):
            if "progress" in item and on_progress is not None:
                on_progress(from_json(Progress, item["progress"]))
            elif "skip" in item and on_skip is not None:
                on_skip(*item["skip"])
            elif "error" in item:
                raise _error(str(item.get("kind", "")), str(item["error"]), item.get("hint"))
            elif "report" in item:
                return from_json(IndexReport, item["report"])
        raise errors.DaemonError("the daemon ended the index run without a report")

    def watch(self, paths: Sequence[str] = (), *, store: str | None = None,
              debounce: float = 0.5, on_event: OnEvent | None = None,
              stop: Event | None = None) -> Watched:
        return from_json(Watched, self._call("watch", {"paths": _here(paths), "store": store}))

    def attach(self, backend: str) -> StoreEntry:
        # Attaching writes only SEMLITH_HOME (a mirror's folder and the registry), which
        # the daemon follows: no daemon call is needed.
        from semlith.local.sources import attach_mirror

        return attach_mirror(self.settings, backend)

    def forget(self, path: str, *, store: str | None = None) -> int:
        return int(self._call("forget", {"path": path, "store": store}))

    def status(self) -> Status:
        return from_json(Status, self._call("status"))

    def runs(self) -> list[Run]:
        return [from_json(Run, r) for r in self._call("runs", {})]

    def stop_run(self, store: str) -> bool:
        return bool(self._call("stop_run", {"store": store}))

    def agents(self) -> Agents:
        return Agents.from_json(self._call("agents", {}))

    def stop(self) -> None:
        """Ask the daemon to stop (it finishes in-flight calls first)."""
        self._call("stop", {})
