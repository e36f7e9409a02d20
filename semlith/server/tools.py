"""The MCP tools, defined once; every transport (HTTP, the stdio proxy) serves these.

Each tool parses its arguments, calls one method of the agent-facing `Library`, and
formats the result (semlith/server/answers.py). Descriptions are written for an agent
deciding which tool to call, and kept short: the whole `tools/list` stays under 1,000
tokens (a test checks). Failures come back as a tool result with `isError` and one
sentence the agent can act on.

Arguments follow one rule for every tool (semlith/server/arguments.py): unknown names
are refused, `store` is an alias of `stores`, one string stands for a one-element list,
and a number out of range is clamped with a note.

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
from functools import wraps
from typing import Annotated, Any, Literal
from urllib.parse import unquote, urlsplit

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import Field

from semlith import __version__
from semlith.base.names import escape_name
from semlith.errors import SemlithError
from semlith.library import Library
from semlith.server import answers
from semlith.server.arguments import RuledTool
from semlith.types import Filters, Scope, counted

log = logging.getLogger("semlith.tools")
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
ROOTS_HEADER = "semlith-roots"
Stores = Annotated[list[str], Field(description='Names; ["*"]: all; default: this project')]
INSTRUCTIONS = ("Semantic + keyword code search over the user's indexed folders. Prefer "
                "semlith_search to grep for questions; semlith_read to see exact lines.")


def _failure(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def _answers(func: Callable[..., Awaitable[str | CallToolResult]]
             ) -> Callable[..., Awaitable[Any]]:
    """Turn domain errors into an `isError` result with their one-line message."""
    @wraps(func)
    async def run(*args: Any, **kwargs: Any) -> str | CallToolResult:
        try:
            return await func(*args, **kwargs)
        except (SemlithError, ValueError, PermissionError) as exc:
            return _failure(str(exc))
    return run


def _compact(schema: Any) -> Any:
    """A JSON schema without pydantic's titles or empty defaults (an absent default says
    as much): tools/list stays small (< 1,000 tokens)."""
    if isinstance(schema, dict):
        return {k: _compact(v) for k, v in schema.items()
                if k != "title" and not (k == "default" and v in ([], "", False))}
    if isinstance(schema, list):
        return [_compact(v) for v in schema]
    return schema


def _one_store(stores: list[str]) -> str | None:
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
        return [_folder(str(root.uri)) for root in result.roots] or [os.getcwd()]
    except Exception as exc:  # noqa: BLE001 - no back channel, a client that fails: cwd
        log.debug("roots/list failed: %s", exc)
        return [os.getcwd()]


def _parse_roots(raw: str) -> list[str]:
    try:
        value = json.loads(unquote(raw))
    except ValueError:
        return []
    return [_folder(v) for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _folder(uri: str) -> str:
    """A `file://` root URI (or a plain path) as a local path."""
    if uri.startswith("file:"):
        path = unquote(urlsplit(uri).path)
        return path[1:] if len(path) > 2 and path[0] == "/" and path[2] == ":" else path
    return uri


def encode_roots(folders: list[str]) -> str:
    """The `Semlith-Roots` header value for these folders (ASCII-safe JSON)."""
    from urllib.parse import quote

    return quote(json.dumps(folders))


class _Registry:
    """Collects tool functions; `server()` builds the MCPServer with compact schemas."""

    def __init__(self) -> None:
        self.tools: list[Tool] = []

    def tool(self, annotations: ToolAnnotations
             ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(func: Callable[..., Any]) -> Callable[..., Any]:
            tool = RuledTool.from_function(func, annotations=annotations,
                                           structured_output=False)
            tool.parameters = _compact(tool.parameters)
            tool.description = " ".join(tool.description.split())
            self.tools.append(tool)
            return func
        return register

    def server(self, listed: str = "default") -> MCPServer:
        shown = None if listed == "all" else LISTED
        server = _Listing("semlith", version=__version__, instructions=INSTRUCTIONS,
                          log_level="WARNING", tools=self.tools, shown=shown)
        _serve_only_tools(server)
        return server


# The SDK registers prompt and resource handlers on every MCPServer and advertises a
# capability for each registered handler; semlith has neither, and clients that saw the
# capabilities listed two empty sets (issue #23). The SDK offers no way to unregister
# a handler, so they leave its table here; tests/test_protocol.py notices if that stops
# working. Unserved, the methods answer "method not found".
UNSERVED = ("prompts/list", "prompts/get", "resources/list", "resources/templates/list",
            "resources/read", "resources/subscribe", "resources/unsubscribe")


def _serve_only_tools(server: MCPServer) -> None:
    handlers = server._lowlevel_server._request_handlers
    for method in UNSERVED:
        handlers.pop(method, None)


# What tools/list shows by default (issue #22): the questions agents ask (find, brief,
# read, where defined, who calls, what breaks) within 1,000 tokens (~960 measured);
# the others (files, stats, index, forget, path) still answer when called by name.
# With stats the list was ~1,050 tokens; a person asks for stats, an agent rarely.
# SEMLITH_MCP_TOOLS=all lists every tool.
LISTED = frozenset({"semlith_search", "semlith_brief", "semlith_read", "semlith_symbol",
                    "semlith_neighbors", "semlith_impact"})


class _Listing(MCPServer):
    """An MCPServer whose tools/list shows only `shown` (None: every tool)."""

    def __init__(self, *args: Any, shown: frozenset[str] | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown = shown

    async def list_tools(self) -> Any:
        tools = await super().list_tools()
        return tools if self._shown is None else [t for t in tools if t.name in self._shown]


def build_mcp(library: Library, limiter: anyio.CapacityLimiter | None = None, *,
              listed: str = "default") -> MCPServer:
    """An MCPServer whose tools answer from `library` (the agent-facing one), on at most
    `limiter`'s number of worker threads at once (anyio's default limiter without one).
    `listed`: "default" (tools/list shows LISTED) or "all"."""
    mcp = _Registry()

    def call(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Awaitable[Any]:
        return anyio.to_thread.run_sync(lambda: func(*args, **kwargs), limiter=limiter)

    @mcp.tool(READ_ONLY)
    @_answers
    async def semlith_search(
        ctx: Context,
        query: Annotated[str, Field(description="Plain English and/or identifiers")],
        k: Annotated[int, Field(ge=1, le=50)] = 10,
        path: Annotated[list[str], Field(description="Globs; !glob excludes")] = [],  # noqa: B006
        ext: list[str] = [],  # noqa: B006 - pydantic copies defaults
        lang: list[str] = [],  # noqa: B006
        stores: Stores = [],  # noqa: B006
        format: Literal["locate", "excerpt", "files"] = "locate",
        max_tokens: Annotated[int, Field(ge=100, le=20000)] = 2000,
        mode: Literal["meaning", "exact", "regex"] = "meaning",
        context: Annotated[int, Field(ge=0, le=10)] = 0,
    ) -> str:
        """Find the code or docs that answer a question. locate: one line per hit,
        grouped by file; excerpt: hit text; files: paths only. mode exact/regex: the
        matching lines (path:line:text) with `context` lines either side, each
        definition's first under path=N=kind name. Then semlith_read the lines you need."""
        filters = Filters(tuple(path or ()), tuple(ext or ()), tuple(lang or ()))
        if mode != "meaning":
            paths_only = format == "files"
            found = await call(library.grep, query, regex=mode == "regex", context=context,
                               files_only=paths_only, filters=filters,
                               scope=await scope_of(ctx, stores))
            return answers.matches(found, max_tokens, files_only=paths_only)
        answer = await call(library.search, query, k=k, filters=filters,
                            scope=await scope_of(ctx, stores))
        multi, note = len(answer.stores) > 1, "; ".join(answer.notes)
        if format == "excerpt":
            return answers.excerpts(answer.hits, max_tokens, multi, note)
        if format == "files":
            return answers.files(answer.hits, max_tokens, multi, note)
        return answers.locate(answer.hits, query, max_tokens, multi, note)

    @mcp.tool(READ_ONLY)
    @_answers
    async def semlith_read(
        ctx: Context,
        target: Annotated[str, Field(description="A locator any tool printed, or a symbol")],
        stores: Stores = [],  # noqa: B006
        include_image: bool = False,
    ) -> str | CallToolResult:
        """Exact lines of an indexed file (numbered), or the definition of a symbol."""
        scope = await scope_of(ctx, stores)
        passage = await call(library.read, target, scope=scope, include_image=include_image)
        text = answers.passage(passage)
        if not passage.image:
            return text
        return CallToolResult(content=[
            TextContent(type="text", text=text),
            ImageContent(type="image", data=passage.image, mime_type=passage.image_mime)])

    @mcp.tool(READ_ONLY)
    @_answers
    async def semlith_files(
        ctx: Context,
        stores: Stores = [],  # noqa: B006
        skipped: Annotated[bool, Field(description="List skipped paths and why")] = False,
        limit: Annotated[int, Field(ge=1, le=5000)] = 500,
    ) -> str:
        """What is indexed (or, with skipped, what was left out and why)."""
        scope = await scope_of(ctx, stores)
        if skipped:
            rows = [(s.store, f"{escape_name(s.path)}\t{s.reason}"
                              f"{f' ({escape_name(s.detail)})' if s.detail else ''}")
                    for s in await call(library.skipped, scope=scope)]
        else:
            rows = [(f.store, escape_name(f.path)
                     + ("" if f.state == "indexed" else "\t(pending)"))
                    for f in await call(library.files, scope=scope)]
        lines: list[str] = []
        for store in dict.fromkeys(name for name, _ in rows):
            mine = [row for name, row in rows if name == store]
            lines += [f"[{store}] {len(mine)} {'skipped' if skipped else 'files'}",
                      *mine[:limit]]
            if len(mine) > limit:
                lines.append(f"({len(mine) - limit} more not shown; raise limit)")
        return "\n".join(lines) or "No files."

    @mcp.tool(READ_ONLY)
    @_answers
    async def semlith_stats(ctx: Context, stores: Stores = []) -> str:  # noqa: B006
        """Stores served, their size, model, and whether indexing is running."""
        out = []
        for info in await call(library.stats, scope=await scope_of(ctx, stores)):
            out.append(f"{info.name}: root {info.root}, {counted(info.files, 'file')} "
                       f"({info.pending_files} pending), {counted(info.chunks, 'chunk')}"
                       + (f" ({info.pending_chunks} not embedded yet)"
                          if info.pending_chunks else "") + ", model "
                       f"{info.model}, indexing {info.indexing}"
                       + (f", {info.from_cache} chunks from the vector cache"
                          if info.from_cache else "")
                       + (f", vectors in {info.shards['backend']}"
                          if "backend" in info.shards else ""))
            if info.watch:
                out.append("  " + info.watch_line)
        return "\n".join(out)

    @mcp.tool(READ_ONLY)
    @_answers
    async def semlith_symbol(
        ctx: Context,
        name: Annotated[str, Field(description="name, Type.method or Type::method")],
        stores: Stores = [],  # noqa: B006
    ) -> str:
        """Where a function, class or type is defined: every definition, best first."""
        scope = await scope_of(ctx, stores)
        hits = await call(library.symbol, name, scope=scope)
        return answers.definitions(hits, name, len({h.store for h in hits}) > 1)

    @mcp.tool(WRITES)
    @_answers
    async def semlith_index(
        ctx: Context,
        paths: Annotated[list[str], Field(description="Under a served root")] = [],  # noqa: B006
        stores: Annotated[list[str], Field(description="One store name")] = [],  # noqa: B006
        time_budget: Annotated[float, Field(ge=1, le=600)] = 45,
    ) -> str:
        """Bring the index up to date now. Works for time_budget seconds; call again
        to continue when it says files are left."""
        report = await call(library.index, paths or (), store=_one_store(stores),
                            time_budget=time_budget)
        return str(report.summary())

    @mcp.tool(WRITES)
    @_answers
    async def semlith_forget(
        ctx: Context,
        path: Annotated[str, Field(description="File or folder under a served root")],
        stores: Annotated[list[str], Field(description="One store name")] = [],  # noqa: B006
    ) -> str:
        """Remove a file or folder from the index (files on disk are untouched)."""
        removed = await call(library.forget, path, store=_one_store(stores))
        return f"forgot {counted(removed, 'file')}"

    from semlith.server import graph_tools

    graph_tools.register(mcp, library, call, read_only=READ_ONLY, answering=_answers,
                         scope_of=scope_of)
    return mcp.server(listed)
