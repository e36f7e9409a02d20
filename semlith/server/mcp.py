"""The MCP server every transport (HTTP, the stdio proxy) serves: the registered tools
(registry.py), their compact schemas, and which of them tools/list shows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer

from semlith.base.version import __version__
from semlith.library import Library
from semlith.server import graph_tools, tools
from semlith.server.arguments import RuledTool
from semlith.server.registry import TOOLS, ToolContext

INSTRUCTIONS = ("Semantic + keyword code search over the user's indexed folders. Prefer "
                "semlith_search to grep for questions; semlith_read to see exact lines.")
# What tools/list shows by default (issue #22): the questions agents ask (find, brief,
# read, where defined, who calls, what breaks) within 1,000 tokens (~960 measured);
# the others (files, stats, index, forget, path, outline) still answer when called by
# name. SEMLITH_MCP_TOOLS=all lists every tool.
LISTED = frozenset({"semlith_search", "semlith_brief", "semlith_read", "semlith_symbol",
                    "semlith_neighbors", "semlith_impact"})
# The SDK registers prompt and resource handlers on every MCPServer and advertises a
# capability for each registered handler; semlith has neither, and clients that saw the
# capabilities listed two empty sets (issue #23). The SDK offers no way to unregister
# a handler, so they leave its table here; tests/test_protocol.py notices if that stops
# working. Unserved, the methods answer "method not found".
UNSERVED = ("prompts/list", "prompts/get", "resources/list", "resources/templates/list",
            "resources/read", "resources/subscribe", "resources/unsubscribe")
_MODULES = (tools, graph_tools)  # imported for their @tool registrations


def build_mcp(library: Library, limiter: anyio.CapacityLimiter | None = None, *,
              listed: str = "default") -> MCPServer:
    """An MCPServer whose tools answer from `library` (the agent-facing one), on at most
    `limiter`'s number of worker threads at once (anyio's default limiter without one).
    `listed`: "default" (tools/list shows LISTED) or "all"."""
    state = ToolContext(library, limiter)

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[ToolContext]:
        yield state

    registered = []
    order = [m.__name__ for m in _MODULES]  # the finding tools first, as tools/list showed
    for func, hints in sorted(TOOLS.values(), key=lambda t: order.index(t[0].__module__)):
        made = RuledTool.from_function(func, annotations=hints, structured_output=False)
        made.parameters = _compact(made.parameters)
        made.description = " ".join(made.description.split())
        registered.append(made)
    server = _Listing("semlith", version=__version__, instructions=INSTRUCTIONS,
                      log_level="WARNING", tools=registered, lifespan=lifespan,
                      shown=None if listed == "all" else LISTED)
    handlers = server._lowlevel_server._request_handlers
    for method in UNSERVED:
        handlers.pop(method, None)
    return server


def _compact(schema: Any) -> Any:
    """A JSON schema without pydantic's titles or empty defaults (an absent default says
    as much): tools/list stays small (< 1,000 tokens)."""
    if isinstance(schema, dict):
        return {k: _compact(v) for k, v in schema.items()
                if k != "title" and not (k == "default" and v in ([], "", False))}
    if isinstance(schema, list):
        return [_compact(v) for v in schema]
    return schema


class _Listing(MCPServer):
    """An MCPServer whose tools/list shows only `shown` (None: every tool)."""

    def __init__(self, *args: Any, shown: frozenset[str] | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown = shown

    async def list_tools(self) -> Any:
        found = await super().list_tools()
        return found if self._shown is None else [t for t in found if t.name in self._shown]
