"""`semlith serve`: one daemon, one model in memory, every registered store.

It binds 127.0.0.1 only (never another port than the one asked for), writes the
discovery file once it listens, loads the model in the background (`initialize`,
`tools/list` and `ping` answer at once; a search waits for it), and on SIGINT/SIGTERM
drains in-flight calls and exits cleanly (uvicorn: a second signal forces the exit).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from email.utils import formatdate
from types import FrameType

import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from semlith.base.home import (
    agent_key,
    clear_discovery,
    control_key,
    read_discovery,
    write_discovery,
)
from semlith.base.settings import Settings
from semlith.base.version import __version__
from semlith.daemon_client import hung, silent_daemon
from semlith.embed.text import Embedder
from semlith.errors import CannotServe
from semlith.index.watch import DEBOUNCE_SECONDS
from semlith.local.serving import serve_stores
from semlith.server.app import Keys, create_app

log = logging.getLogger("semlith.daemon")
GRACEFUL_SECONDS = 10


class _Server(uvicorn.Server):
    """uvicorn's server, except that a second SIGTERM forces the exit as a second SIGINT
    does, a graceful shutdown ends with exit status 0 rather than re-raising the signal
    (which would kill the process before our own clean-up), and its main loop sleeps
    until it is told to stop instead of ticking."""

    _loop: asyncio.AbstractEventLoop | None = None
    _exit: asyncio.Event | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.should_exit:
            self.force_exit = True
        super().handle_exit(sig, frame)
        self.request_exit()

    def request_exit(self) -> None:
        """Stop serving; callable from any thread and from a signal handler."""
        self.should_exit = True
        loop, wake = self._loop, self._exit
        if loop is not None and wake is not None and not loop.is_closed():
            loop.call_soon_threadsafe(wake.set)

    async def main_loop(self) -> None:
        """uvicorn's loop wakes ten times a second to see whether it should stop and to
        refresh the Date header once a second (semlith's once a second still cost 16 ms
        of CPU per idle minute; issue #25, docs/performance.md, "Idle, wake-up by
        wake-up"). This one waits for `request_exit`; `DateHeader` dates each response."""
        self._loop, self._exit = asyncio.get_running_loop(), asyncio.Event()
        await self.on_tick(0)  # uvicorn's default headers (server), once
        with _signal_wakeup(self._loop) as woken:
            while not self.should_exit:
                if woken:
                    await self._exit.wait()
                else:  # no wake-up by signal here: look once a second, as before
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._exit.wait(), 1.0)
                self._exit.clear()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        with super().capture_signals():
            yield
            self._captured_signals.clear()


@contextlib.contextmanager
def _signal_wakeup(loop: asyncio.AbstractEventLoop) -> Iterator[bool]:
    """Wake the event loop when a signal arrives, whichever thread the OS gives it to;
    yields whether it can (False: the caller must look for a stop itself).

    Python runs a signal's handler on the main thread between bytecodes; a loop asleep in
    epoll would run it only at its next wake-up. asyncio's own signal handling does the
    same: a byte on a socket the loop reads (`signal.set_wakeup_fd`). Windows' default
    (proactor) loop has no `add_reader`: there the loop looks once a second."""
    if threading.current_thread() is not threading.main_thread():
        yield True  # uvicorn captures no signals off the main thread either
        return
    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    try:
        loop.add_reader(reader.fileno(), _drain, reader)
    except NotImplementedError:
        reader.close()
        writer.close()
        yield False
        return
    previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    try:
        yield True
    finally:
        signal.set_wakeup_fd(previous)
        loop.remove_reader(reader.fileno())
        reader.close()
        writer.close()


def _drain(reader: socket.socket) -> None:
    with contextlib.suppress(OSError):
        reader.recv(4096)


class DateHeader:
    """ASGI middleware: a Date header on every response, read from the clock then (uvicorn
    keeps one refreshed by its once-a-second tick, which this daemon does not run)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._second = -1
        self._value = b""

    def _now(self) -> bytes:
        now = int(time.time())
        if now != self._second:
            self._second, self._value = now, formatdate(now, usegmt=True).encode()
        return self._value

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def dated(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()),
                                                  (b"date", self._now())]}
            await send(message)
        await self.app(scope, receive, dated)


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:port, or CannotServe saying who holds the port."""
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say so, and
    # without it every response waited ~40 ms for a delayed ACK (measured: 44 ms -> 1 ms).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    if sys.platform != "win32":  # on Windows SO_REUSEADDR would allow stealing the port
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1)):
            holder = _semlith_on(port)
            who = f"a semlith {holder} daemon (of another SEMLITH_HOME)" if holder \
                else "another program"
            raise CannotServe(f"port {port} on 127.0.0.1 is in use by {who}; "
                              "pass --port or set SEMLITH_PORT") from None
        raise CannotServe(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from None
    sock.listen(128)
    return sock


def _semlith_on(port: int) -> str | None:
    """The version of the semlith daemon answering on `port`, if one does."""
    import json
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
            body = json.loads(answer.read())
    except (OSError, ValueError):
        return None
    return str(body.get("version")) if isinstance(body, dict) and body.get("ok") else None


def serve(settings: Settings, stores: Sequence[str] = (), port: int | None = None, *,
          watch: bool = True, debounce: float = DEBOUNCE_SECONDS,
          embedder_factory: Callable[[str], Embedder] | None = None) -> None:
    """Run the daemon until stopped. Raises CannotServe when it cannot start."""
    home = settings.home
    silent = silent_daemon(settings)  # its process lives, and it answers nothing
    if silent is not None:
        raise CannotServe(hung(silent))
    running = read_discovery(home)
    if running is not None:
        raise CannotServe(f"a semlith daemon already runs (pid {running.pid}, port "
                          f"{running.port}); `semlith stop` stops it")
    port = settings.port if port is None else port
    sock = bind(port)
    try:
        served = serve_stores(settings, stores, embedder_factory=embedder_factory)
    except BaseException:
        sock.close()
        raise
    fleet = served.fleet
    keys = Keys(agent_key(home), control_key(home))
    config = uvicorn.Config(None, log_level="warning", access_log=False,  # type: ignore[arg-type]
                            timeout_graceful_shutdown=GRACEFUL_SECONDS, lifespan="on",
                            date_header=False)  # DateHeader dates each response
    server = _Server(config)

    def started() -> None:
        fleet.start_loading_models()
        if watch:
            fleet.start_watching(debounce)
        fleet.follow()

    config.app = DateHeader(create_app(settings, agent=served.agent, person=served.person,
                                       keys=keys, on_stop=server.request_exit,
                                       on_startup=started))
    actual = sock.getsockname()[1]
    fleet.port = actual
    write_discovery(home, actual, __version__)
    print(f"semlith {__version__} serving {len(fleet.held)} store(s) on "
          f"http://127.0.0.1:{actual}/mcp (pid {os.getpid()})", file=sys.stderr, flush=True)
    for folder, why in fleet.problems.items():
        print(f"semlith: not serving {folder}: {why}", file=sys.stderr, flush=True)
    try:
        server.run(sockets=[sock])
    finally:
        served.close()
        clear_discovery(home)
        sock.close()


def wait_until_gone(pid: int, timeout: float) -> bool:
    from semlith.base.home import pid_alive

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.1)
    return not pid_alive(pid)
