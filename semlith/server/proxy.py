"""`semlith mcp`: MCP over stdio for editors, forwarded to the daemon's /mcp.

It finds the daemon through the discovery file, starts one in the background if none
runs, and forwards every JSON-RPC message both ways, adding the agent key itself so the
editor's config holds no secret. stdout carries protocol only; diagnostics go to stderr.

It also tells the daemon which project the editor works on, so searches default to
that project's stores: when the client declares the MCP `roots` capability the proxy
asks it for its roots (`roots/list`, again on `notifications/roots/list_changed`) and
keeps that exchange to itself; otherwise it uses its own working folder. Every forwarded
message carries them in the `Semlith-Roots` header.

It outlives the daemon: when the daemon restarts, crashes or forgets the session, the
upstream (upstream.py) finds it again, opens a new session and resends what was not
answered, so the editor sees nothing but one line on stderr.

If no daemon can be started, it serves the same tools in this process and says why on
stderr and in `semlith_stats`.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING, Any

import anyio

from semlith.base.home import Discovery
from semlith.base.settings import Settings
from semlith.daemon_client import running, start_in_background
from semlith.errors import DaemonError
from semlith.server.registry import ROOTS_HEADER, encode_roots

if TYPE_CHECKING:
    from semlith.server.upstream import Upstream

log = logging.getLogger("semlith.proxy")
DRAIN_SECONDS = 30.0  # after stdin closes, how long to wait for answers still due
ROOTS_WAIT_SECONDS = 2.0  # a first request waits this long for the client's roots
ROOTS_ID = "semlith-proxy-roots"


def run_proxy(settings: Settings) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    try:
        found = running(settings) or start_in_background(settings)
    except DaemonError as exc:
        print(f"semlith mcp: {exc}; serving the tools in this process instead",
              file=sys.stderr, flush=True)
        return _serve_here(settings)
    # The SDK's transport logs a traceback when a notification's POST fails; the
    # upstream recovers from that and says so in one line (semlith/server/upstream.py).
    logging.getLogger("mcp.client.streamable_http").setLevel(logging.CRITICAL)
    anyio.run(_forward, settings, found)
    return 0


def _serve_here(settings: Settings) -> int:
    from semlith.local.serving import serve_stores
    from semlith.server.mcp import build_mcp

    served = serve_stores(settings)
    served.fleet.start_loading_models()
    try:
        build_mcp(served.agent, listed=settings.mcp_tools).run("stdio")
    finally:
        served.close()
    return 0


class _State:
    """What the two directions share."""

    def __init__(self) -> None:
        self.version: str | None = None
        self.init: set[Any] = set()
        self.roots_capable = False
        self.roots: list[str] = [os.getcwd()]
        self.roots_known = anyio.Event()
        self.asked = 0


async def _forward(settings: Settings, found: Discovery) -> None:
    """Copy messages stdin -> daemon and daemon -> stdout until stdin closes."""
    from mcp.server.stdio import stdio_server

    from semlith.server.upstream import Upstream

    state = _State()
    async with stdio_server() as (s_read, s_write):
        async def deliver(msg: Any) -> None:
            await _deliver(s_write, msg, state)

        upstream = Upstream(settings, found, deliver)
        async with anyio.create_task_group() as group:
            group.start_soon(upstream.run)
            async with anyio.create_task_group() as later:  # first tool calls held back
                await _from_editor(s_read, s_write, upstream, state, later)
            # stdin closed: answer what was asked (bounded), then end the session.
            await upstream.drain(DRAIN_SECONDS)
            group.cancel_scope.cancel()
        # The transport finishes its own tasks once its write side is closed.
        await s_write.aclose()


async def _ask_roots(s_write: Any, state: _State) -> None:
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCRequest

    state.asked += 1
    await s_write.send(SessionMessage(JSONRPCRequest(
        jsonrpc="2.0", id=f"{ROOTS_ID}-{state.asked}", method="roots/list")))


def _take_roots(msg: Any, state: _State) -> bool:
    """Keep the answer to our own roots/list; True when `msg` was it."""
    from mcp.types import JSONRPCError, JSONRPCResponse

    if not isinstance(msg, JSONRPCResponse | JSONRPCError) or \
            not str(msg.id).startswith(ROOTS_ID):
        return False
    if isinstance(msg, JSONRPCResponse):
        from semlith.server.registry import folder_of as _folder

        roots = (msg.result or {}).get("roots") or []
        folders = [_folder(str(r.get("uri", ""))) for r in roots if isinstance(r, dict)]
        state.roots = [f for f in folders if f] or [os.getcwd()]
    state.roots_known.set()
    return True


async def _from_editor(s_read: Any, s_write: Any, upstream: Upstream, state: _State,
                       later: Any) -> None:
    """The editor's messages, with their headers, to the upstream until stdin closes."""
    from mcp.types import JSONRPCNotification, JSONRPCRequest

    async for item in s_read:
        if isinstance(item, Exception):  # a line the editor sent that is not JSON-RPC
            log.warning("ignored a malformed message from the client: %s", item)
            continue
        msg = item.message
        if _take_roots(msg, state):
            continue
        if not isinstance(msg, JSONRPCRequest | JSONRPCNotification):
            await _send(upstream, msg, {}, state)
            continue
        headers = _headers(msg, state)
        if msg.method in ("notifications/initialized",
                          "notifications/roots/list_changed") and state.roots_capable:
            state.roots_known = anyio.Event()
            await _ask_roots(s_write, state)
        if isinstance(msg, JSONRPCRequest) and msg.method == "tools/call" and \
                not state.roots_known.is_set() and state.asked:
            # The roots' answer comes on this same stdin: wait for it elsewhere.
            later.start_soon(_send_later, upstream, msg, headers, state)
            continue
        await _send(upstream, msg, headers, state)


def _headers(msg: Any, state: _State) -> dict[str, str]:
    """The headers a request or notification goes with (noting the client's roots
    capability and, at 2026-07-28, mirroring the body in the routing headers)."""
    from mcp.shared.inbound import (
        MCP_METHOD_HEADER,
        MCP_NAME_HEADER,
        MCP_PROTOCOL_VERSION_HEADER,
        NAME_BEARING_METHODS,
        encode_header_value,
    )
    from mcp.types import JSONRPCRequest
    from mcp_types import PROTOCOL_VERSION_META_KEY

    headers: dict[str, str] = {}
    params = msg.params or {}
    meta = params.get("_meta")
    version = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None
    if msg.method == "initialize":
        caps = params.get("capabilities")
        state.roots_capable = isinstance(caps, dict) and "roots" in caps
    if isinstance(meta, dict) and isinstance(meta.get(
            "io.modelcontextprotocol/clientCapabilities"), dict):
        state.roots_capable = state.roots_capable or "roots" in meta[
            "io.modelcontextprotocol/clientCapabilities"]
    if version is not None:
        state.version = version
        headers[MCP_PROTOCOL_VERSION_HEADER] = version
        headers[MCP_METHOD_HEADER] = msg.method
        field = NAME_BEARING_METHODS.get(msg.method)
        if field and isinstance(params.get(field), str):
            headers[MCP_NAME_HEADER] = encode_header_value(params[field])
    elif msg.method == "initialize" and isinstance(msg, JSONRPCRequest):
        state.init.add(msg.id)
    elif state.version:
        headers[MCP_PROTOCOL_VERSION_HEADER] = state.version
    return headers


async def _send(upstream: Upstream, msg: Any, headers: dict[str, str],
                state: _State) -> None:
    headers[ROOTS_HEADER] = encode_roots(state.roots)
    await upstream.send(msg, headers)


async def _send_later(upstream: Upstream, msg: Any, headers: dict[str, str],
                      state: _State) -> None:
    """Forward a first tool call once the client's roots are known (or after a wait)."""
    with anyio.move_on_after(ROOTS_WAIT_SECONDS):
        await state.roots_known.wait()
    await _send(upstream, msg, headers, state)


async def _deliver(s_write: Any, msg: Any, state: _State) -> None:
    """One message of the daemon's to the editor (the negotiated version noted)."""
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCResponse

    if isinstance(msg, JSONRPCResponse) and msg.id in state.init:
        state.init.discard(msg.id)
        state.version = (msg.result or {}).get("protocolVersion")
    await s_write.send(SessionMessage(msg))
