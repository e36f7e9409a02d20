"""The MCP tools' registry and what every tool shares (issue #44).

A tool is a module-level async function (server/tools.py, server/graph_tools.py)
registered with `@tool(annotations)`; it gets the agent-facing `Library` and the worker
limiter from the server's lifespan, as the SDK's lifespan pattern has it
(`ctx.request_context.lifespan_context` is a `ToolContext`), calls one method with
`call(ctx, ...)` and formats. `server/mcp.py` builds the server from `TOOLS`.

Scope: without `stores`, a tool answers from the stores of the caller's project — the
folders named by the `Semlith-Roots` header (the stdio proxy sends the editor's MCP
roots, or its own folder) or, over stdio in process, the client's MCP roots.
`stores: ["*"]` addresses every store.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import wraps
from typing import Annotated, Any
from urllib.parse import quote, unquote, urlsplit

import anyio
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from semlith.errors import Hint, SemlithError, worded
from semlith.library import Library
from semlith.types import Scope

log = logging.getLogger("semlith.tools")
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
ROOTS_HEADER = "semlith-roots"
Stores = Annotated[list[str], Field(description="Names; * for all")]
# Bounds are checked by the library (one sentence back): a schema's min/max cost
# tools/list bytes it does not have.
Budget = Annotated[int, Field(description="Budget")]
Tool = Callable[..., Awaitable[Any]]
TOOLS: dict[str, tuple[Tool, ToolAnnotations]] = {}  # name -> (function, annotations)
# A library error's next step, as an agent takes it (the CLI's words: cli/base.py).
HINTS = {Hint.LIST_FILES: "semlith_files lists them",
         Hint.FIND: "semlith_files lists files, semlith_search finds code",
         Hint.CHOOSE_STORE: 'pass stores: ["NAME"] or stores: ["*"] for every store',
         Hint.INDEX: "the user creates one with `semlith index DIR`"}


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What the lifespan gives every tool call."""

    library: Library  # the agent-facing one: scoped to served roots, reads checked
    limiter: anyio.CapacityLimiter | None = None  # worker threads for library calls


def tool(annotations: ToolAnnotations) -> Callable[[Tool], Tool]:
    """Register a tool function; its domain errors become an `isError` result."""
    def register(func: Tool) -> Tool:
        @wraps(func)
        async def run(*args: Any, **kwargs: Any) -> str | CallToolResult:
            try:
                result: str | CallToolResult = await func(*args, **kwargs)
                return result
            except (SemlithError, ValueError, PermissionError) as exc:
                return failure(worded(exc, HINTS))
        TOOLS[func.__name__] = (run, annotations)
        return run
    return register


def failure(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def _context(ctx: Context) -> ToolContext:
    state = ctx.request_context.lifespan_context
    if not isinstance(state, ToolContext):
        raise TypeError("the MCP server was built without semlith's lifespan")
    return state


def call(ctx: Context, method: str, *args: Any, **kwargs: Any) -> Awaitable[Any]:
    """Library method `method` with these arguments, on a worker thread."""
    state = _context(ctx)
    func = getattr(state.library, method)
    return anyio.to_thread.run_sync(lambda: func(*args, **kwargs), limiter=state.limiter)


def one_store(stores: list[str]) -> str | None:
    """The one store a write names (`stores` or its alias `store`), or None."""
    if len(stores) > 1 or stores == ["*"]:
        raise ValueError(f"name one store to write to, not {', '.join(stores)}")
    return stores[0] if stores else None


async def scope_of(ctx: Context, stores: list[str]) -> Scope:
    """The stores a call addresses: the named ones, else the caller's project folders."""
    if stores:
        return Scope(tuple(stores))
    return Scope(near=tuple(await _roots(ctx)))


async def _roots(ctx: Context) -> list[str]:
    """The caller's folders: the proxy's header, else the client's MCP roots (stdio)."""
    request = ctx.request_context.request
    headers = getattr(request, "headers", None)
    if headers is not None:
        raw = headers.get(ROOTS_HEADER)
        return _parse_roots(raw) if raw else []
    try:
        session = ctx.request_context.session
        caps = session.client_params.capabilities if session.client_params else None
        if caps is None or caps.roots is None:
            return [os.getcwd()]
        with anyio.fail_after(2):
            result = await session.list_roots()
        return [folder_of(str(root.uri)) for root in result.roots] or [os.getcwd()]
    except Exception as exc:  # noqa: BLE001 - no back channel, a client that fails: cwd
        log.debug("roots/list failed: %s", exc)
        return [os.getcwd()]


def _parse_roots(raw: str) -> list[str]:
    try:
        value = json.loads(unquote(raw))
    except ValueError:
        return []
    return [folder_of(v) for v in value if isinstance(v, str)] if isinstance(value, list) \
        else []


def folder_of(uri: str) -> str:
    """A `file://` root URI (or a plain path) as a local path."""
    if uri.startswith("file:"):
        path = unquote(urlsplit(uri).path)
        return path[1:] if len(path) > 2 and path[0] == "/" and path[2] == ":" else path
    return uri


def encode_roots(folders: list[str]) -> str:
    """The `Semlith-Roots` header value for these folders (ASCII-safe JSON)."""
    return quote(json.dumps(folders))
