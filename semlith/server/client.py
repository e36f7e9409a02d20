"""Talking to a running daemon from the CLI and the stdio proxy (stdlib HTTP only)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

from semlith.errors import SemlithError
from semlith.home import DAEMON_LOG, Discovery, agent_key, read_discovery
from semlith.private import make_private_folder, private_opener
from semlith.settings import Settings

START_SECONDS = 60.0
RACE_SECONDS = 2.0


class DaemonError(SemlithError):
    """The daemon answered with an error, or could not be reached."""


def call(settings: Settings, found: Discovery, method: str, path: str,
         body: dict[str, Any] | None = None, timeout: float = 600.0) -> Any:
    """One authenticated JSON request to the daemon; DaemonError on failure."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        found.url + path, data=data, method=method,
        headers={"Authorization": f"Bearer {agent_key(settings.home)}",
                 "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read()).get("error", "")
        except ValueError:
            message = ""
        raise DaemonError(message or f"the daemon answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise DaemonError(f"the daemon on port {found.port} did not answer ({exc})") from None


def healthy(found: Discovery, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(found.url + "/healthz", timeout=timeout) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def running(settings: Settings) -> Discovery | None:
    """The daemon that runs and answers, or None."""
    found = read_discovery(settings.home)
    return found if found is not None and healthy(found) else None


def start_in_background(settings: Settings) -> Discovery:
    """Start `semlith serve` detached and wait until it answers; DaemonError if it won't."""
    make_private_folder(settings.home)
    log = open(settings.home / DAEMON_LOG, "ab",  # noqa: SIM115 - handed to the child
               opener=private_opener)
    kwargs: dict[str, Any] = {"stdin": subprocess.DEVNULL, "stdout": log, "stderr": log,
                              "env": {**os.environ, "SEMLITH_HOME": str(settings.home)}}
    if sys.platform == "win32":
        kwargs["creationflags"] = 0x00000008 | 0x00000200  # DETACHED | NEW_PROCESS_GROUP
    else:
        kwargs["start_new_session"] = True
    child = subprocess.Popen([sys.executable, "-m", "semlith", "serve"], **kwargs)
    log.close()
    deadline = time.monotonic() + START_SECONDS
    exited: float | None = None
    while time.monotonic() < deadline:
        found = running(settings)
        if found is not None:
            return found
        if child.poll() is not None:
            # Our child also exits when another `semlith mcp` started a daemon a moment
            # earlier that does not answer yet: give that one a little time.
            exited = exited or time.monotonic()
            if read_discovery(settings.home) is None and \
                    time.monotonic() > exited + RACE_SECONDS:
                break
        time.sleep(0.1)
    tail = (settings.home / DAEMON_LOG).read_text(errors="replace").strip().splitlines()[-1:]
    raise DaemonError("could not start the daemon" + (f": {tail[0]}" if tail else ""))
