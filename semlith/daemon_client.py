"""Finding, checking and starting the daemon (stdlib HTTP only); its API is semlith/remote.py."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

from semlith.base.home import DAEMON_LOG, Discovery, read_discovery
from semlith.base.private import make_private_folder, private_opener
from semlith.base.settings import Settings
from semlith.errors import DaemonError

START_SECONDS = 60.0
RACE_SECONDS = 2.0


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
    # -P and a neutral working folder: a `semlith/` folder where the editor was started
    # would otherwise shadow the installed package (`python -m` puts "" first on the path).
    child = subprocess.Popen([sys.executable, "-P", "-m", "semlith", "serve"],
                             cwd=settings.home, **kwargs)
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
