"""`semlith mcp`: MCP over stdio for editors, forwarded to the daemon's /mcp.

It finds the daemon through the discovery file, starts one in the background if none
runs, and forwards every JSON-RPC message both ways, adding the agent key itself so the
editor's config holds no secret. stdout carries protocol only; diagnostics go to stderr.
If no daemon can be started, it serves the same tools in this process and says so.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

import anyio

from semlith.api import App
from semlith.home import agent_key, registered_stores
from semlith.server.client import DaemonError, running, start_in_background

log = logging.getLogger("semlith.proxy")
DRAIN_SECONDS = 30.0  # after stdin closes, how long to wait for answers still due


def run_proxy(app: App) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    try:
        found = running(app.settings) or start_in_background(app.settings)
    except DaemonError as exc:
        print(f"semlith mcp: {exc}; serving the tools in this process instead",
              file=sys.stderr, flush=True)
        return _serve_here(app)
    anyio.run(_forward, f"{found.url}/mcp", agent_key(app.settings.home))
    return 0


def _serve_here(app: App) -> int:
    from semlith.server.fleet import Fleet
    from semlith.server.tools import build_mcp

    fleet = Fleet(app)
    fleet.open(registered_stores(app.settings.home))
    threading.Thread(target=fleet.load_models, daemon=True).start()
    try:
        build_mcp(fleet).run("stdio")
    finally:
        fleet.close()
    return 0


async def _forward(url: str, key: str) -> None:
    """Copy messages stdin -> HTTP and HTTP -> stdout until stdin closes."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.server.stdio import stdio_server
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    state: dict[str, Any] = {"version": None, "init": set(), "waiting": set(),
                             "answered": anyio.Event()}
    async with http, stdio_server() as (s_read, s_write), \
            streamable_http_client(url, http_client=http) as (h_read, h_write):
        async with anyio.create_task_group() as group:
            group.start_soon(_upstream, s_read, h_write, state, group)
            group.start_soon(_downstream, h_read, s_write, state)
        # Both transports finish their own tasks once their write side is closed.
        await s_write.aclose()
        await h_write.aclose()


async def _upstream(s_read: Any, h_write: Any, state: dict[str, Any], group: Any) -> None:
    from mcp.shared.inbound import (
        MCP_METHOD_HEADER,
        MCP_NAME_HEADER,
        MCP_PROTOCOL_VERSION_HEADER,
        NAME_BEARING_METHODS,
        encode_header_value,
    )
    from mcp.shared.message import ClientMessageMetadata, SessionMessage
    from mcp.types import JSONRPCNotification, JSONRPCRequest
    from mcp_types import PROTOCOL_VERSION_META_KEY

    async for item in s_read:
        if isinstance(item, Exception):  # a line the editor sent that is not JSON-RPC
            log.warning("ignored a malformed message from the client: %s", item)
            continue
        msg, headers = item.message, {}
        if isinstance(msg, JSONRPCRequest | JSONRPCNotification):
            params = msg.params or {}
            meta = params.get("_meta")
            version = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None
            if version is not None:  # 2026-07-28: the routing headers mirror the body
                state["version"] = version
                headers[MCP_PROTOCOL_VERSION_HEADER] = version
                headers[MCP_METHOD_HEADER] = msg.method
                field = NAME_BEARING_METHODS.get(msg.method)
                if field and isinstance(params.get(field), str):
                    headers[MCP_NAME_HEADER] = encode_header_value(params[field])
            elif msg.method == "initialize" and isinstance(msg, JSONRPCRequest):
                state["init"].add(msg.id)
            elif state["version"]:
                headers[MCP_PROTOCOL_VERSION_HEADER] = state["version"]
            if isinstance(msg, JSONRPCRequest):
                state["waiting"].add(msg.id)
        await h_write.send(SessionMessage(msg, metadata=ClientMessageMetadata(
            headers=headers or None)))
    # stdin closed: answer what was asked (bounded), then end the session.
    with anyio.move_on_after(DRAIN_SECONDS):
        while state["waiting"]:
            state["answered"] = anyio.Event()
            await state["answered"].wait()
    group.cancel_scope.cancel()


async def _downstream(h_read: Any, s_write: Any, state: dict[str, Any]) -> None:
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCError, JSONRPCResponse

    async for item in h_read:
        if isinstance(item, Exception):
            log.warning("the daemon connection failed: %s", item)
            continue
        msg = item.message
        if isinstance(msg, JSONRPCResponse) and msg.id in state["init"]:
            state["init"].discard(msg.id)
            state["version"] = (msg.result or {}).get("protocolVersion")
        await s_write.send(SessionMessage(msg))
        if isinstance(msg, JSONRPCResponse | JSONRPCError):
            state["waiting"].discard(msg.id)
            state["answered"].set()
