"""The client of one Milvus engine: calls whose deadlines hold, and a breaker (issue #26).

Measured with the engine killed (`kill -9`) under a daemon that held its stores: a
search blocked 211 s, an index run as long, and the first search after the engine came
back took 79 s. The causes, in pymilvus 2.5.18 and gRPC:

- pymilvus's retry decorator (`decorators.py`, `retry_on_rpc_failure`) bounds its
  retries by the call's `timeout` only when that is an `int`. Our 60.0 is a float, so
  it fell back to 75 retries with back-offs of up to 3 s: 211 s.
- A gRPC channel whose connection failed reconnects on a back-off that grows 1.6x a
  try up to 120 s, and fails calls at once in between. After a long outage the first
  call waited, retrying, for the channel's next reconnect: 79 s.
- Nothing remembered that the engine was down, so every call paid again.

So a read (the query path) makes one attempt per pymilvus layer with what is left of
`READ_TIMEOUT_S`, and semlith retries it once on a new channel. A write or admin call
passes pymilvus an int timeout, so its retries at every layer end inside
`WRITE_TIMEOUT_S`. A new channel is first checked to connect: a refused port is known
in milliseconds, and is not retried. A call that finds the engine unreachable closes
the client (the channel and its back-off go with it). For `COOL_OFF_S` after that,
every call fails at once with a line naming the target and how long it has been
unreachable; then one call probes with a new channel.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from semlith.base.private import create_private_file
from semlith.errors import BackendError
from semlith.store.milvus.target import TOKEN_ENV, MilvusTarget

# An interactive search: the slowest healthy read measured (a `--path` filter at 1M rows
# on lite, 32 clients) is 1.6 s p95 (docs/performance.md), and a search makes about
# three reads in a row, so 8 s leaves 5x headroom and a slow engine still answers an
# agent within ~25 s.
READ_TIMEOUT_S = 8.0
WRITE_TIMEOUT_S = 60.0  # writes and admin calls: a cluster under load may be slow
# A probe costs milliseconds when the engine refuses, up to CONNECT_TIMEOUT_S when
# packets are dropped; 15 s puts a recovered engine back in searches within 15 s.
COOL_OFF_S = 15.0
# A new connection: one to a healthy engine is up in milliseconds (loopback: see
# benchmarks/scenarios_milvus_outage.py); 5 s is half the 10 s pymilvus waits by default.
CONNECT_TIMEOUT_S = 5.0
PYMILVUS_BACKOFF_S = 3.0  # decorators.py `max_back_off`: its last sleep before giving up
INSTALL = "pip install 'semlith[milvus]'"

Run = Callable[[Any, dict[str, Any]], Any]  # (client, timeout keywords) -> result
_aliases = itertools.count()


class Budget(StrEnum):
    """How long a call may take, pymilvus's retries included."""

    READ = "read"
    WRITE = "write"

    def seconds(self) -> float:
        return READ_TIMEOUT_S if self is Budget.READ else WRITE_TIMEOUT_S

    def timeouts(self, deadline: float) -> dict[str, Any]:
        """pymilvus's keywords for a call that must end by `deadline` (monotonic)."""
        left = max(0.01, deadline - time.monotonic())
        if self is Budget.READ:  # a float timeout and no retries: one attempt, `left` long
            return {"timeout": left, "retry_times": 0}
        # An int: pymilvus retries within it, in the calls it makes inside this one too
        # (an upsert describes the collection first), and sleeps once more at the end.
        return {"timeout": max(1, int(left - PYMILVUS_BACKOFF_S))}


class Unreachable(Exception):
    """No connection to the engine (refused, reset, or no answer in time)."""


def reason(exc: BaseException) -> str:
    """One line of a client error, without anything the token could be part of. A gRPC
    failure reads as its status and details, not pymilvus's retry wrapping of it."""
    text = ""
    if not isinstance(exc, Unreachable):
        grpc = _grpc()
        rpc = next(filter(None, (_rpc_error(e, grpc) for e in _causes(exc))), None)
        if rpc is not None and callable(getattr(rpc, "details", None)):
            text = f"{rpc.code().name}: {rpc.details()}"
    text = text or (str(getattr(exc, "message", "") or exc) or repr(exc))
    text = text.splitlines()[0] if text.strip() else repr(exc)
    token = os.environ.get(TOKEN_ENV, "")
    return text.replace(token, "***") if token else text


def _grpc() -> Any:
    """The gRPC module, which comes with pymilvus (the `milvus` extra)."""
    import grpc  # type: ignore[import-untyped]

    return grpc


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and what it came from. pymilvus re-raises `raise e from e`, which makes an
    error its own cause; the gRPC error is then only its context."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo += [e.__cause__, e.__context__]


def _rpc_error(e: BaseException, grpc: Any) -> Any:
    """The gRPC error `e` is or carries, or None. pymilvus's MilvusException of a failed
    retry holds the gRPC error's bound `code` method as its code."""
    owner = e if isinstance(e, grpc.RpcError) else getattr(getattr(e, "code", None),
                                                           "__self__", None)
    if isinstance(owner, grpc.RpcError) and callable(getattr(owner, "code", None)):
        return owner
    return None


def unreachable(exc: BaseException) -> bool:
    """Whether `exc` says the engine could not be reached, rather than that it answered
    with an error (a bad filter, a missing collection)."""
    grpc = _grpc()
    # CANCELLED: an in-flight call whose channel another call closed (semlith cancels
    # nothing else), which must not count as an answer from the engine.
    down = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
            grpc.StatusCode.CANCELLED)
    for e in _causes(exc):
        if isinstance(e, Unreachable | grpc.FutureTimeoutError):
            return True
        if isinstance(e, ValueError) and "closed channel" in str(e):
            return True  # another call closed this client: the engine went away
        if "Fail connecting to server" in str(e):  # pymilvus's CONNECT_FAILED
            return True
        rpc = _rpc_error(e, grpc)
        if rpc is not None and rpc.code() in down:
            return True
    return False


def wait_reachable(target: MilvusTarget, timeout: float) -> None:
    """Return once a gRPC connection to `target` is up; raise Unreachable as soon as one
    fails (a refused port fails in milliseconds) or after `timeout`."""
    grpc = _grpc()
    channel = (grpc.secure_channel(target.address, grpc.ssl_channel_credentials())
               if target.scheme == "milvus+https" else grpc.insecure_channel(target.address))
    settled: list[Any] = []
    event = threading.Event()
    final = (grpc.ChannelConnectivity.READY, grpc.ChannelConnectivity.TRANSIENT_FAILURE)

    def watch(state: Any) -> None:
        if state in final:
            settled.append(state)
            event.set()

    channel.subscribe(watch, try_to_connect=True)
    try:
        if not event.wait(max(0.0, timeout)):
            raise Unreachable(f"no connection to {target.address} in {timeout:.0f} s")
        if settled[0] is not grpc.ChannelConnectivity.READY:
            raise Unreachable(f"no connection to {target.address} (refused or failed)")
    finally:
        channel.unsubscribe(watch)
        channel.close()


@dataclass(slots=True)
class _Outage:
    since: float  # wall clock, for the message
    why: str
    retry_at: float  # monotonic: the first call after this probes
    probing: bool = False


class Breaker:
    """What a process knows of one engine being down: while it is, calls fail at once,
    except one probe a cool-off. Kept per engine for the life of the process, so
    stores opened for one call each (the library without a daemon) still find it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._outage: _Outage | None = None

    @property
    def down(self) -> bool:
        return self._outage is not None

    def admit(self, target: MilvusTarget) -> None:
        """Return if a call may go to the engine; raise BackendError if it is known down."""
        with self._lock:
            outage = self._outage
            if outage is None:
                return
            if outage.probing or time.monotonic() < outage.retry_at:
                raise BackendError(self._message(target, outage))
            outage.probing = True

    def trip(self, target: MilvusTarget, exc: BaseException, started: float) -> str:
        """Record that a call begun at `started` (wall clock) found the engine
        unreachable; the line to report."""
        with self._lock:
            if self._outage is None:
                self._outage = _Outage(started, reason(exc), 0.0)
            elif self._outage.probing:  # a new verdict; other calls of the outage add none
                self._outage.why = reason(exc)
            self._outage.retry_at = time.monotonic() + COOL_OFF_S
            self._outage.probing = False
            return self._message(target, self._outage)

    def answered(self) -> None:
        with self._lock:
            self._outage = None

    def end_probe(self) -> None:
        """A probe that ended without a verdict (interrupted) lets the next call probe."""
        with self._lock:
            if self._outage is not None:
                self._outage.probing = False

    @staticmethod
    def _message(target: MilvusTarget, outage: _Outage) -> str:
        since = time.strftime("%H:%M:%S", time.localtime(outage.since))
        wait = max(0, round(outage.retry_at - time.monotonic()))
        return (f"cannot reach Milvus at {target} since {since} "
                f"({time.time() - outage.since:.0f} s): {outage.why}; "
                f"failing at once, next try in {wait} s")


class Connection:
    """One engine's client, shared by every space of a process that uses it (one URI and
    token)."""

    def __init__(self, target: MilvusTarget, token: str, breaker: Breaker) -> None:
        self.target = target
        self.breaker = breaker
        self._token = token
        self._lock = threading.Lock()
        self._client: Any = None
        self.users = 0

    def call(self, target: MilvusTarget, what: str, budget: Budget, run: Run) -> Any:
        """`run(client, timeouts)` within `budget`; BackendError names `target`."""
        started, deadline = time.time(), time.monotonic() + budget.seconds()
        self.breaker.admit(target)
        try:
            return self._attempts(target, what, (started, deadline), budget, run)
        finally:
            self.breaker.end_probe()

    def _attempts(self, target: MilvusTarget, what: str, times: tuple[float, float],
                  budget: Budget, run: Run) -> Any:
        started, deadline = times  # wall clock at the call's start, monotonic deadline
        for attempt in (1, 2):
            client = None
            try:
                client = self._client_by(deadline)
                result = run(client, budget.timeouts(deadline))
            except BackendError:  # pymilvus is not installed
                raise
            except Exception as exc:
                if not unreachable(exc):
                    self.breaker.answered()
                    raise BackendError(f"Milvus {what} at {target} failed: "
                                       f"{reason(exc)}") from exc
                # A connection the engine dropped (a restart, a balancer) may work again
                # at once on a new channel; a refused connect will not.
                if (attempt == 1 and client is not None and not self.breaker.down
                        and time.monotonic() < deadline - 0.1):
                    self._drop(client)
                    continue
                line = self.breaker.trip(target, exc, started)  # first: the drop cancels
                self._drop(client)
                raise BackendError(line) from exc
            self.breaker.answered()
            return result
        raise AssertionError("not reached: the second attempt returns or raises")

    # -- the client ------------------------------------------------------------------

    def _client_by(self, deadline: float) -> Any:
        with self._lock:
            if self._client is not None:
                return self._client
        client = self._connect(deadline)
        with self._lock:
            if self._client is None:
                self._client = client
                return client
            kept = self._client
        client.close()  # another call connected first
        return kept

    def _connect(self, deadline: float) -> Any:
        try:
            from pymilvus import MilvusClient
        except ImportError as exc:  # the extra is not installed
            raise BackendError(f"the Milvus backend needs pymilvus: {INSTALL}") from exc
        # pymilvus logs each failed attempt to stderr through its own handler (measured:
        # 12 lines for one failed search); semlith reports the failure once, in one line.
        for name in ("pymilvus", "pymilvus.milvus_client"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        if self.target.scheme != "milvus+lite":  # the embedded engine starts on connect
            wait_reachable(self.target, min(CONNECT_TIMEOUT_S, deadline - time.monotonic()))
        else:
            _private_database(self.target.address)
        with warnings.catch_warnings():  # milvus-lite 2.5 imports pkg_resources (a .db URI)
            warnings.filterwarnings("ignore", message="pkg_resources is deprecated")
            # A new alias: pymilvus keeps one connection per alias, and a dropped client's
            # channel must not come back.
            return MilvusClient(uri=self.target.uri, token=self._token,
                                timeout=max(0.1, deadline - time.monotonic()),
                                alias=f"semlith-{os.getpid()}-{next(_aliases)}")

    def _drop(self, client: Any) -> None:
        """Close `client` if it is still the one in use (a new call connects anew)."""
        with self._lock:
            if client is None or self._client is not client:
                return
            self._client = None
        client.close()

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()


def _private_database(address: str) -> None:
    """Make the embedded engine's database owner-only, like every other store file: it
    holds the indexed text. milvus-lite 2.5.1 creates it with the umask's mode (0644
    measured) and opens an empty file as a new database, keeping the file's mode (and
    SQLite gives its journals the database's mode), so the file is created first."""
    path = Path(address)
    try:
        create_private_file(path)
        create_private_file(path.with_name(f".{path.name}.lock"))  # its writer lock
    except FileNotFoundError:
        pass  # no such folder: the engine's own error says so


class Connections:
    """One `Connection` per (URI, token) in a process, closed when its last space closes,
    and one `Breaker` per (URI, token) for the life of the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[tuple[str, str], Connection] = {}
        self._breakers: dict[tuple[str, str], Breaker] = {}

    def get(self, target: MilvusTarget) -> Connection:
        key = (target.uri, os.environ.get(TOKEN_ENV, ""))
        with self._lock:
            connection = self._held.get(key)
            if connection is None:
                breaker = self._breakers.setdefault(key, Breaker())
                connection = self._held[key] = Connection(target, key[1], breaker)
            connection.users += 1
            return connection

    def release(self, connection: Connection) -> None:
        with self._lock:
            connection.users -= 1
            if connection.users > 0:
                return
            for key, held in list(self._held.items()):
                if held is connection:
                    del self._held[key]
        connection.close()


CONNECTIONS = Connections()
