"""`RemoteLibrary`: the library of the running daemon, over its JSON API (`/api/*`).

Each method is one authenticated POST to `/api/<operation>` whose body is the method's
arguments and whose answer is the result's `as_json()`, both derived from the protocol's
signatures (semlith/wire.py: a method here is one line); an error is
`{"error": sentence, "kind": class name}` with status 400 and is raised here as the same
kind of error. `index` streams its progress as JSON lines. The API takes the control key
(`SEMLITH_HOME/control.key`), which agents never get: only the person's own processes
can ask the daemon to index or forget folders they name.
"""

from __future__ import annotations

import functools
import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

from semlith import errors, wire
from semlith.base.home import Discovery, control_key
from semlith.base.settings import Settings
from semlith.daemon_client import answered
from semlith.library import Library, OnProgress, OnSkip
from semlith.setup.inventory import Installation
from semlith.types import IndexReport, Progress, Status, StoreEntry, Watched, from_json

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


def _remote(name: str) -> Any:
    """A `RemoteLibrary` method for protocol method `name`: the protocol's signature and
    docs, its arguments sent by the wire (an image is resolved here: the caller's path)."""
    protocol = getattr(Library, name)

    @functools.wraps(protocol)
    def method(self: RemoteLibrary, *args: Any, **kwargs: Any) -> Any:
        if name == "search" and kwargs.get("image") is not None:
            kwargs["image"] = str(Path(kwargs["image"]).expanduser().resolve())
        return self._op(name, *args, **kwargs)
    return method


def _here(paths: Sequence[str]) -> list[str]:
    """The paths of a request, the caller's folder when none: the daemon's own folder
    means nothing to the caller."""
    return list(paths) or [os.getcwd()]


class RemoteLibrary(Installation, Library):
    """`semlith.library.Library` answered by the daemon that `found` describes. Every
    protocol method the wire carries is `_remote`'s (set below the class): adding an
    operation to the protocol adds it here."""

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
        try:  # bounded by the daemon's health checks (daemon_client.answered)
            return answered(self.found, lambda: urllib.request.urlopen(request, timeout=timeout),
                            self.settings.daemon_deadline_s)
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

    # -- the library: every method is the protocol's, sent by the wire (wire.py) ---------

    def _op(self, name: str, *args: Any, **kwargs: Any) -> Any:
        op = wire.operations()[name]
        return wire.result(op, self._call(name, wire.request(op, op.bind(*args, **kwargs))))

    def status(self) -> Status:
        return cast(Status, wire.result(wire.operations()["status"], self._call("status")))

    def index(self, *args: Any, **kwargs: Any) -> IndexReport:
        op = wire.operations()["index"]
        given = op.bind(*args, **kwargs)
        on_progress: OnProgress | None = given["on_progress"]
        on_skip: OnSkip | None = given["on_skip"]
        body = wire.request(op, {**given, "paths": _here(given["paths"])})
        body["skips"] = on_skip is not None  # the daemon streams skips only when asked
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

    def watch(self, *args: Any, **kwargs: Any) -> Watched:
        op = wire.operations()["watch"]
        given = op.bind(*args, **kwargs)  # the daemon watches; nothing is reported back
        return cast(Watched, wire.result(op, self._call("watch", wire.request(
            op, {**given, "paths": _here(given["paths"])}))))

    def attach(self, backend: str) -> StoreEntry:
        # Attaching writes only SEMLITH_HOME (a mirror's folder and the registry), which
        # the daemon follows: no daemon call is needed.
        from semlith.local.sources import attach_mirror

        return attach_mirror(self.settings, backend)

    def stop(self) -> None:
        """Ask the daemon to stop (it finishes in-flight calls first)."""
        self._call("stop", {})


for _name in wire.operations():
    if _name not in vars(RemoteLibrary):  # `index`, `watch` and `status` are written out
        setattr(RemoteLibrary, _name, _remote(_name))
