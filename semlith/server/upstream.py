"""The proxy's end of the daemon's /mcp: one upstream session that outlives the daemon.

An editor keeps `semlith mcp` all day; the daemon behind it does not live that long:
it is stopped and started again, upgraded, crashes, or forgets a session that was idle
(the SDK reaps one after 30 minutes and answers its id with 404 from then on). Every
failure looks like one of: a refused or reset connection (the SDK's transport raises),
a 404 to a message that named a session, the SDK's "connection closed" error for a
request, or the transport's streams ending. On any of them `Upstream` finds the daemon
again as the proxy did at startup (daemon.json, else start one in the background), opens
a new session by replaying the editor's own `initialize` (the answer stays here) and
`notifications/initialized`, and sends again every request not yet answered; a
2026-07-28 request needs no session, only the resend.

It is bounded by the deadline (`SEMLITH_DAEMON_DEADLINE`, 30 s): a request waits at
most that long from its first failure, then is answered with UNREACHABLE (or, when the
daemon's process lives but answers nothing, with what daemon_client.hung says); the next
request starts a new round. A daemon that stops answering while requests wait on it
(SIGSTOP, a hang: the connection stays open and the SDK's read waits 300 s) is found by
its health check, which `_watch` sends while any request waits: when none has been
answered for the deadline, the waiting requests get the error and the session is
dropped. A daemon busy with a long call (an index run) answers its checks, and the call
waits. An answer reaches the editor at most once, only for an id still pending, so a
request the daemon answered before it died is never sent again.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
from mcp.shared.message import ClientMessageMetadata, SessionMessage
from mcp.types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
)

from semlith.base.home import Discovery, agent_key
from semlith.base.settings import Settings
from semlith.daemon_client import PROBES, hung, running, start_in_background
from semlith.errors import DaemonError, DaemonHung

log = logging.getLogger("semlith.proxy")
BACKOFF = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0)  # pauses before successive attempts (then 8 s)
SLACK_SECONDS = 0.5  # a failed request is given up this long before its deadline
CLOSE_SECONDS = 5.0  # how long ending the session at exit may take
UNREACHABLE = "the semlith daemon is not reachable; start it with `semlith serve`"
REPLAY_ID = "semlith-proxy-initialize"
SESSION_HEADER = "mcp-session-id"
# What a failed transport raises out of the SDK's task group.
TRANSPORT_ERRORS = (httpx2.HTTPError, OSError, anyio.BrokenResourceError,
                    anyio.ClosedResourceError)

Deliver = Callable[[JSONRPCMessage], Awaitable[None]]


def notice(text: str) -> None:
    """One line for the editor's log (the proxy's stderr)."""
    print(f"semlith mcp: {text}", file=sys.stderr, flush=True)


class _Pending:
    """A request of the editor's, sent or waiting to be, and not answered yet."""

    __slots__ = ("due", "headers", "msg", "sent")

    def __init__(self, msg: JSONRPCRequest, headers: dict[str, str]) -> None:
        self.msg = msg
        self.headers = headers
        self.due: float | None = None  # set at its first failure: answer it by then
        self.sent = False  # it went out once (a daemon may have started on it)


class _Link:
    """One HTTP session with one daemon; `lost` once it cannot carry messages any more."""

    def __init__(self, found: Discovery) -> None:
        self.found = found
        self.write: Any = None
        self.scope: anyio.CancelScope | None = None  # the session's own tasks
        self.lost = anyio.Event()
        self.opened = anyio.Event()  # the daemon answered the replayed initialize
        self.version: str | None = None
        self.session_id: str | None = None
        self.sent: set[Any] = set()
        self.requested = anyio.Event()  # a request went out (wakes `Upstream._watch`)
        self.up = False

    def fail(self) -> None:
        self.lost.set()
        if self.scope is not None:
            self.scope.cancel()

    async def on_response(self, response: httpx2.Response) -> None:
        """httpx hook, before the SDK reads the body: a 404 to a message that named a
        session means the daemon does not know it (restarted, or reaped it)."""
        self.session_id = response.headers.get(SESSION_HEADER) or self.session_id
        if response.status_code == 404 and SESSION_HEADER in response.request.headers:
            self.fail()

    async def send(self, msg: JSONRPCMessage, headers: dict[str, str]) -> None:
        if isinstance(msg, JSONRPCRequest):
            self.sent.add(msg.id)
            self.requested.set()
        try:
            await self.write.send(SessionMessage(
                msg, metadata=ClientMessageMetadata(headers=dict(headers))))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            self.fail()  # the SDK's writer ended: its transport failed


class Upstream:
    """Forwards the editor's messages to the daemon and its answers back, across restarts.

    `deliver` writes one message to the editor. Run `run()` in a task for the proxy's
    lifetime (cancel it to stop: the session is ended with a DELETE on the way out).
    """

    def __init__(self, settings: Settings, found: Discovery, deliver: Deliver) -> None:
        self.settings = settings
        self.deliver = deliver
        self._found: Discovery | None = found
        self._pid = found.pid  # of the daemon of the last session that came up
        self._pending: dict[Any, _Pending] = {}
        self._opening: _Pending | None = None  # the editor's initialize, to replay
        self._link: _Link | None = None
        self._wanted = anyio.Event()  # a request waits for a session
        self._changed = anyio.Event()  # a pending request was answered or dropped
        self._broken = False  # a session failed since the last one came up
        self.deadline = settings.daemon_deadline_s
        self._why = UNREACHABLE  # what an overdue request is answered with

    async def send(self, msg: JSONRPCMessage, headers: dict[str, str]) -> None:
        """Forward one message of the editor's; a request is kept until it is answered.
        While no session is up, requests wait for one and notifications are dropped
        (a new session gets its `notifications/initialized` from the replay)."""
        entry = _Pending(msg, headers) if isinstance(msg, JSONRPCRequest) else None
        if entry is not None:
            self._pending[entry.msg.id] = entry
            # 2026-07-28 messages all carry the version header; a legacy initialize does
            # not (there is none to carry yet), and it is what opens a session.
            if entry.msg.method == "initialize" and MCP_PROTOCOL_VERSION_HEADER not in headers:
                self._opening = entry
        elif isinstance(msg, JSONRPCNotification) and msg.method == "notifications/cancelled":
            self._drop(cancelled_request_id_from_params(msg.params))
        link = self._link
        if link is None or link.lost.is_set():
            if entry is not None:
                self._start_clocks()
                self._wanted.set()
            return
        if entry is not None:
            entry.sent = True
        await link.send(msg, headers)

    async def drain(self, seconds: float) -> None:
        """Wait (at most `seconds`) until every request has had its answer."""
        with anyio.move_on_after(seconds):
            while self._pending:
                self._changed = anyio.Event()
                await self._changed.wait()

    async def run(self) -> None:
        """Keep a session with the daemon while the editor needs one."""
        found, attempt = self._found, 0
        while True:
            if found is not None and await self._session(found):
                attempt = 0
            self._broken = True
            self._start_clocks()
            await self._give_up_overdue()
            if self._pending:
                with anyio.move_on_after(self._patience()):
                    await anyio.sleep(BACKOFF[min(attempt, len(BACKOFF) - 1)])
                attempt += 1
            else:  # nothing to resend: reconnect when the editor asks for something
                self._wanted = anyio.Event()
                await self._wanted.wait()
                attempt = 0
            found = await self._find()

    async def _session(self, found: Discovery) -> bool:
        """Serve one session with the daemon at `found` until it fails or the proxy
        stops; True if it came up."""
        link = _Link(found)
        http = create_mcp_http_client(
            headers={"Authorization": f"Bearer {agent_key(self.settings.home)}"})
        http.event_hooks["response"].append(link.on_response)
        async with http:
            try:
                # terminate_on_close=False: the SDK would also DELETE a session that is
                # gone, and log a warning for it; _end does it when the session is alive.
                async with streamable_http_client(f"{found.url}/mcp", http_client=http,
                                                  terminate_on_close=False) as (read, write), \
                        anyio.create_task_group() as group:
                    link.write, link.scope = write, group.cancel_scope
                    group.start_soon(self._read, read, link)
                    group.start_soon(self._watch, link)
                    with anyio.move_on_after(self._patience()):
                        await self._reopen(link)
                    if link.up:
                        await anyio.sleep_forever()  # until fail() or the proxy stops
                    link.fail()
            except* TRANSPORT_ERRORS as failed:
                link.lost.set()
                log.info("the daemon connection failed: %r", failed.exceptions[0])
            finally:
                if self._link is link:
                    self._link = None
                if not link.lost.is_set():
                    with anyio.CancelScope(shield=True):
                        await _end(http, link)
        return link.up

    async def _reopen(self, link: _Link) -> None:
        """Replay the editor's handshake on a new session, then send what is unanswered."""
        opening = self._opening
        if opening is not None and opening.msg.id not in self._pending:
            await link.send(JSONRPCRequest(jsonrpc="2.0", id=REPLAY_ID, method="initialize",
                                           params=opening.msg.params), opening.headers)
            await link.opened.wait()
            headers = dict(opening.headers)
            if link.version:
                headers[MCP_PROTOCOL_VERSION_HEADER] = link.version
            await link.send(JSONRPCNotification(
                jsonrpc="2.0", method="notifications/initialized"), headers)
        self._link, link.up = link, True
        if self._broken:
            self._broken = False
            notice(f"the daemon restarted (pid {self._pid} -> {link.found.pid}); reconnected"
                   if link.found.pid != self._pid else
                   f"the daemon (pid {self._pid}) had ended this session; reconnected")
        self._pid = link.found.pid
        for key, entry in list(self._pending.items()):
            if key not in link.sent and key in self._pending:
                if not entry.sent:  # its first time out: its clock ran for a session only
                    entry.due, entry.sent = None, True
                await link.send(entry.msg, entry.headers)

    async def _read(self, read: Any, link: _Link) -> None:
        """The daemon's messages to the editor, until the transport ends."""
        async for item in read:
            if isinstance(item, Exception):
                log.warning("the daemon sent a message that could not be read: %s", item)
                continue
            msg = item.message
            if not isinstance(msg, JSONRPCResponse | JSONRPCError):
                await self.deliver(msg)  # the daemon's own requests and notifications
            elif isinstance(msg, JSONRPCError) and msg.error.code == CONNECTION_CLOSED:
                link.fail()  # the SDK lost the answer's stream: the request goes again
                return
            elif msg.id == REPLAY_ID:
                if isinstance(msg, JSONRPCError):
                    log.warning("the daemon refused the session: %s", msg.error.message)
                    link.fail()
                    return
                link.version = (msg.result or {}).get("protocolVersion")
                link.opened.set()
            else:
                await self._answer(msg)
        link.fail()  # the transport ended

    async def _answer(self, msg: JSONRPCResponse | JSONRPCError) -> None:
        """Pass an answer to the editor, once: only for a request still pending."""
        if self._pending.pop(msg.id, None) is None:
            log.debug("dropped an answer to %r, which is not pending", msg.id)
            return
        # Shielded: the answer is no longer pending, so it must not be lost half-way.
        with anyio.CancelScope(shield=True):
            await self.deliver(msg)
        self._changed.set()

    async def _watch(self, link: _Link) -> None:
        """While requests wait on this session, check the daemon's health; when it has
        answered no check for the deadline, answer them with the error and drop the
        session. (Each round takes at most 2 * `every`, so the give-up is in time.)"""
        every, heard = self.deadline / PROBES, anyio.current_time()

        def waiting() -> list[Any]:
            return [key for key in self._pending if key in link.sent]

        async with httpx2.AsyncClient(timeout=every) as probe:
            while True:
                if not waiting():  # asleep until a request goes out (no idle wake-ups)
                    link.requested = anyio.Event()
                    await link.requested.wait()
                    heard = anyio.current_time()
                await anyio.sleep(every)
                if not waiting() or await _healthy(probe, link.found):
                    heard = anyio.current_time()
                elif anyio.current_time() + 2 * every > heard + self.deadline:
                    break
        message, given_up = hung(link.found, anyio.current_time() - heard), waiting()
        for key in given_up:
            await self._answer(JSONRPCError(jsonrpc="2.0", id=key, error=ErrorData(
                code=INTERNAL_ERROR, message=message)))
        notice(f"{message} (answered {len(given_up)} request(s) with this error)")
        link.fail()

    def _drop(self, request_id: Any) -> None:
        if self._pending.pop(request_id, None) is not None:
            self._changed.set()

    def _start_clocks(self) -> None:
        # Due a little before the deadline: finding the daemon runs on a thread, and the
        # error must still reach the editor in time (measured: 0.2 s late without it).
        due = anyio.current_time() + max(self.deadline - SLACK_SECONDS, self.deadline / 2)
        for entry in self._pending.values():
            entry.due = due if entry.due is None else entry.due

    def _patience(self) -> float:
        """Seconds until the first pending request is due (the deadline when none is)."""
        dues = [e.due for e in self._pending.values() if e.due is not None]
        return max(0.1, min(dues) - anyio.current_time()) if dues else self.deadline

    async def _give_up_overdue(self) -> None:
        now, failed = anyio.current_time(), 0
        for key, entry in list(self._pending.items()):
            if entry.due is not None and entry.due <= now:
                failed += 1
                await self._answer(JSONRPCError(jsonrpc="2.0", id=key, error=ErrorData(
                    code=INTERNAL_ERROR, message=self._why)))
        if failed:
            notice(f"{self._why} (answered {failed} request(s) with this error)")

    async def _find(self) -> Discovery | None:
        """The daemon that answers, started as at startup if none does; None if none
        does in time."""
        with anyio.move_on_after(self._patience()):
            # Abandoned on time-out: start_in_background waits up to a minute itself.
            return await anyio.to_thread.run_sync(self._find_or_start,
                                                  abandon_on_cancel=True)
        return None

    def _find_or_start(self) -> Discovery | None:
        try:
            found = running(self.settings) or start_in_background(self.settings)
        except DaemonError as exc:
            log.info("no daemon: %s", exc)
            self._why = str(exc) if isinstance(exc, DaemonHung) else UNREACHABLE
            return None
        self._why = UNREACHABLE
        return found


async def _healthy(probe: httpx2.AsyncClient, found: Discovery) -> bool:
    """Whether the daemon answers its health check within the client's time-out."""
    try:
        return (await probe.get(f"{found.url}/healthz")).status_code == 200
    except httpx2.HTTPError:
        return False


async def _end(http: httpx2.AsyncClient, link: _Link) -> None:
    """End a live session as the SDK's terminate_on_close does (bounded, best effort)."""
    if link.session_id is None:
        return
    with anyio.move_on_after(CLOSE_SECONDS), contextlib.suppress(httpx2.HTTPError):
        await http.delete(f"{link.found.url}/mcp", headers={SESSION_HEADER: link.session_id})
