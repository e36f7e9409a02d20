"""`semlith mcp`: MCP over stdio for editors, forwarded to the daemon's /mcp.

It finds the daemon through the discovery file, starts one in the background if none
runs, and forwards every JSON-RPC message both ways, adding the agent key itself so the
editor's config holds no secret. stdout carries protocol only; diagnostics go to stderr.

It also tells the daemon which project the editor works on, so searches default to
that project's stores: when the client declares the MCP `roots` capability the proxy
asks it for its roots (`roots/list`, again on `notifications/roots/list_changed`) and
keeps that exchange to itself; otherwise it uses its own working folder. Every forwarded
message carries them in the `Semlith-Roots` header.

If no daemon can be started, it serves the same tools in this process and says why on
stderr and in `semlith_stats`.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

import anyio

from semlith.home import agent_key, registered_stores
from semlith.server.client import DaemonError, running, start_in_background
from semlith.server.tools import ROOTS_HEADER, encode_roots
from semlith.settings import Settings

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
    anyio.run(_forward, f"{found.url}/mcp", agent_key(settings.home))
    return 0


def _serve_here(settings: Settings) -> int:
    from semlith.local import Engine, LocalLibrary
    from semlith.server.fleet import Fleet
    from semlith.server.tools import build_mcp

    engine = Engine(settings)
    fleet = Fleet(engine)
    fleet.open(registered_stores(settings.home))
    fleet.start_loading_models()
    try:
        build_mcp(LocalLibrary(settings, engine=engine, source=fleet, agent=True)).run("stdio")
    finally:
        fleet.close()
        engine.close()
    return 0


class _State:
    """What the two directions share."""

    def __init__(self) -> None:
        self.version: str | None = None
        self.init: set[Any] = set()
        self.waiting: set[Any] = set()
        self.answered = anyio.Event()
        self.roots_capable = False
        self.roots: list[str] = [os.getcwd()]
        self.roots_known = anyio.Event()
        self.asked = 0


async def _forward(url: str, key: str) -> None:
    """Copy messages stdin -> HTTP and HTTP -> stdout until stdin closes."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.server.stdio import stdio_server
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    state = _State()
    async with http, stdio_server() as (s_read, s_write), \
            streamable_http_client(url, http_client=http) as (h_read, h_write):
        async with anyio.create_task_group() as group:
            group.start_soon(_upstream, s_read, s_write, h_write, state, group)
            group.start_soon(_downstream, h_read, s_write, state)
        # Both transports finish their own tasks once their write side is closed.
        await s_write.aclose()
        await h_write.aclose()


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
        from semlith.server.tools import _folder

        roots = (msg.result or {}).get("roots") or []
        folders = [_folder(str(r.get("uri", ""))) for r in roots if isinstance(r, dict)]
        state.roots = [f for f in folders if f] or [os.getcwd()]
    state.roots_known.set()
    return True


async def _upstream(s_read: Any, s_write: Any, h_write: Any, state: _State,
                    group: Any) -> None:
    from mcp.shared.inbound import (
        MCP_METHOD_HEADER,
        MCP_NAME_HEADER,
        MCP_PROTOCOL_VERSION_HEADER,
        NAME_BEARING_METHODS,
        encode_header_value,
    )
    from mcp.types import JSONRPCNotification, JSONRPCRequest
    from mcp_types import PROTOCOL_VERSION_META_KEY

    async for item in s_read:
        if isinstance(item, Exception):  # a line the editor sent that is not JSON-RPC
            log.warning("ignored a malformed message from the client: %s", item)
            continue
        msg, headers = item.message, {}
        if _take_roots(msg, state):
            continue
        if isinstance(msg, JSONRPCRequest | JSONRPCNotification):
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
            if version is not None:  # 2026-07-28: the routing headers mirror the body
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
            if msg.method in ("notifications/initialized",
                              "notifications/roots/list_changed") and state.roots_capable:
                state.roots_known = anyio.Event()
                await _ask_roots(s_write, state)
            if isinstance(msg, JSONRPCRequest):
                state.waiting.add(msg.id)
                if msg.method == "tools/call" and not state.roots_known.is_set() \
                        and state.asked:
                    # The roots' answer comes on this same stdin: wait for it elsewhere.
                    group.start_soon(_send_later, h_write, msg, headers, state)
                    continue
        await _send(h_write, msg, headers, state)
    # stdin closed: answer what was asked (bounded), then end the session.
    with anyio.move_on_after(DRAIN_SECONDS):
        while state.waiting:
            state.answered = anyio.Event()
            await state.answered.wait()
    group.cancel_scope.cancel()


async def _send(h_write: Any, msg: Any, headers: dict[str, str], state: _State) -> None:
    from mcp.shared.message import ClientMessageMetadata, SessionMessage

    headers[ROOTS_HEADER] = encode_roots(state.roots)
    await h_write.send(SessionMessage(msg, metadata=ClientMessageMetadata(headers=headers)))


async def _send_later(h_write: Any, msg: Any, headers: dict[str, str],
                      state: _State) -> None:
    """Forward a first tool call once the client's roots are known (or after a wait)."""
    with anyio.move_on_after(ROOTS_WAIT_SECONDS):
        await state.roots_known.wait()
    await _send(h_write, msg, headers, state)


async def _downstream(h_read: Any, s_write: Any, state: _State) -> None:
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCError, JSONRPCResponse

    async for item in h_read:
        if isinstance(item, Exception):
            log.warning("the daemon connection failed: %s", item)
            continue
        msg = item.message
        if isinstance(msg, JSONRPCResponse) and msg.id in state.init:
            state.init.discard(msg.id)
            state.version = (msg.result or {}).get("protocolVersion")
        await s_write.send(SessionMessage(msg))
        if isinstance(msg, JSONRPCResponse | JSONRPCError):
            state.waiting.discard(msg.id)
            state.answered.set()
