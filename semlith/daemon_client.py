"""Finding, checking and starting the daemon (stdlib HTTP only); its API is semlith/remote.py.

No wait here is longer than its deadline (issue #47): a daemon whose process lives but
answers nothing (stopped with SIGSTOP, hung, or a program that took its port) is told
apart by its health check (`/healthz`, answered by the event loop even while a long call
runs) within `SEMLITH_DAEMON_DEADLINE`, and reported as `DaemonHung`.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any, TypeVar

from semlith.base.home import DAEMON_LOG, Discovery, read_discovery
from semlith.base.private import make_private_folder, private_opener
from semlith.base.settings import Settings
from semlith.errors import DaemonError, DaemonHung

START_SECONDS = 60.0
RACE_SECONDS = 2.0
PROBES = 10  # health checks per deadline: a hung daemon is given up between 80 and 100 %
T = TypeVar("T")


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


def hung(found: Discovery, seconds: float = 0) -> str:
    """What to say of a daemon that answers nothing: a person or an agent acts on it."""
    since = f" for {seconds:.0f} s" if seconds else ""
    return (f"the semlith daemon (pid {found.pid}, port {found.port}) has answered nothing"
            f"{since}, not even its health check (stopped or hung); end process "
            f"{found.pid} and run `semlith serve`")


def silent_daemon(settings: Settings, *, probe: bool = True) -> Discovery | None:
    """The daemon daemon.json names if it is hung: its process lives, it started longer
    than the deadline ago (one just started answers within moments), and it does not
    answer its health check (`probe`: check it here; else the caller just did)."""
    found = read_discovery(settings.home)
    if found is None or time.time() - found.started < settings.daemon_deadline_s:
        return None
    return None if probe and healthy(found) else found


def _to_start(settings: Settings) -> Discovery | None:
    """None when a daemon should be started; the daemon daemon.json names when it answers
    (again: a thawed one); DaemonHung when it lives and is hung."""
    found = read_discovery(settings.home)
    if found is None or healthy(found):
        return found
    if time.time() - found.started >= settings.daemon_deadline_s:
        raise DaemonHung(hung(found))  # a new daemon would only refuse to run beside it
    return None  # just started: the one we start waits for it, or takes its place


def answered(found: Discovery, call: Callable[[], T], deadline: float) -> T:
    """`call()`, a request to the daemon at `found`, run on a thread while this one checks
    the daemon's health: DaemonHung once it has answered no check for `deadline` seconds,
    instead of waiting for the request's own time-out (600 s). A daemon busy with a long
    call answers its checks, and the call waits. (A given-up request is left to its
    thread, which ends at that time-out.)"""
    done: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)

    def run() -> None:
        try:
            done.put((True, call()))
        except BaseException as exc:  # noqa: BLE001 - raised again on the caller's thread
            done.put((False, exc))

    threading.Thread(target=run, name="semlith-daemon-call", daemon=True).start()
    every, heard = deadline / PROBES, time.monotonic()
    while True:
        try:
            ok, value = done.get(timeout=every)
        except queue.Empty:
            if healthy(found, every):
                heard = time.monotonic()
            elif time.monotonic() + 2 * every > heard + deadline:  # the next would be late
                raise DaemonHung(hung(found, time.monotonic() - heard)) from None
            continue
        if ok:
            return value  # type: ignore[no-any-return]
        raise value


def start_in_background(settings: Settings) -> Discovery:
    """Start `semlith serve` detached and wait until it answers; DaemonError if it won't
    (DaemonHung at once when the daemon that daemon.json names answers nothing)."""
    answering = _to_start(settings)
    if answering is not None:
        return answering
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
            silent = silent_daemon(settings, probe=False)  # running() just checked it
            if silent is not None:
                raise DaemonHung(hung(silent))
            if read_discovery(settings.home) is None and \
                    time.monotonic() > exited + RACE_SECONDS:
                break
        time.sleep(0.1)
    tail = (settings.home / DAEMON_LOG).read_text(errors="replace").strip().splitlines()[-1:]
    raise DaemonError("could not start the daemon" + (f": {tail[0]}" if tail else ""))
