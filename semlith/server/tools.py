"""The MCP tools that find and read (and index and forget); the graph's are in
graph_tools.py. Each is a module-level function over the lifespan's `ToolContext`
(registry.py): it parses its arguments, calls one method of the agent-facing `Library`,
and formats the result (server/answers.py). Descriptions are written for an agent
deciding which tool to call, and kept short: the whole `tools/list` stays under 1,000
tokens (a test checks). Failures come back as a tool result with `isError` and one
sentence the agent can act on.

Arguments follow one rule for every tool (server/arguments.py): unknown names are
refused, `store` is an alias of `stores`, one string stands for a one-element list,
and a number out of range is clamped with a note.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, ImageContent, TextContent
from pydantic import Field

from semlith.server import answers
from semlith.server.registry import (
    READ_ONLY,
    WRITES,
    Budget,
    Stores,
    call,
    one_store,
    scope_of,
    tool,
)
from semlith.types import Filters, counted


@tool(READ_ONLY)
async def semlith_search(
    ctx: Context,
    query: Annotated[str, Field(description="Words or identifiers")],
    k: Annotated[int, Field(ge=1, le=50, description="Hits (lines)")] = 10,
    path: Annotated[list[str], Field(description="Globs; !glob excludes")] = [],  # noqa: B006
    ext: Annotated[list[str], Field(description="py; !py excludes")] = [],  # noqa: B006
    lang: Annotated[list[str], Field(description="python")] = [],  # noqa: B006
    stores: Stores = [],  # noqa: B006 - pydantic copies defaults
    format: Annotated[Literal["locate", "excerpt", "files"], Field(
        description="a line a hit; hit text; paths")] = "locate",
    max_tokens: Annotated[int, Field(ge=100, le=20000, description="Budget")] = 2000,
    mode: Annotated[Literal["meaning", "exact", "regex"], Field(
        description="exact/regex: as rg")] = "meaning",
    context: Annotated[int, Field(ge=0, le=10, description="Around matches")] = 0,
) -> str:
    """Find the code or docs that answer a question; semlith_read what you need."""
    filters = Filters(tuple(path or ()), tuple(ext or ()), tuple(lang or ()))
    if mode != "meaning":
        paths_only = format == "files"
        found = await call(ctx, "grep", query, regex=mode == "regex", context=context,
                           files_only=paths_only, filters=filters, limit=k,
                           scope=await scope_of(ctx, stores))
        return answers.matches(found, max_tokens, files_only=paths_only)
    answer = await call(ctx, "search", query, k=k, filters=filters,
                        scope=await scope_of(ctx, stores))
    multi, note = len(answer.stores) > 1, "; ".join(answer.notes)
    if format == "excerpt":
        return answers.excerpts(answer.hits, max_tokens, multi, note)
    if format == "files":
        return answers.files(answer.hits, max_tokens, multi, note)
    return answers.locate(answer.hits, max_tokens, multi, note)

@tool(READ_ONLY)
async def semlith_read(
    ctx: Context,
    target: Annotated[str, Field(description="A locator, or a symbol")],
    stores: Stores = [],  # noqa: B006
    include_image: Annotated[bool, Field(description="Send the picture")] = False,
) -> str | CallToolResult:
    """Numbered lines of an indexed file, or a symbol's definition."""
    scope = await scope_of(ctx, stores)
    passage = await call(ctx, "read", target, scope=scope, include_image=include_image)
    text = answers.passage(passage)
    if not passage.image:
        return text
    return CallToolResult(content=[
        TextContent(type="text", text=text),
        ImageContent(type="image", data=passage.image, mime_type=passage.image_mime)])

@tool(READ_ONLY)
async def semlith_files(
    ctx: Context,
    stores: Stores = [],  # noqa: B006
    skipped: Annotated[bool, Field(description="List skipped paths and why")] = False,
    limit: Annotated[int, Field(ge=1, le=5000)] = 500,
) -> str:
    """What is indexed (or, with skipped, what was left out and why)."""
    scope = await scope_of(ctx, stores)
    if skipped:
        return answers.skipped_text(await call(ctx, "skipped", scope=scope), limit)
    return answers.files_text(await call(ctx, "files", scope=scope), limit)

@tool(READ_ONLY)
async def semlith_stats(ctx: Context, stores: Stores = []) -> str:  # noqa: B006
    """Stores served, their size, model, and whether indexing is running."""
    return answers.stats_text(await call(ctx, "stats", scope=await scope_of(ctx, stores)))

@tool(READ_ONLY)
async def semlith_symbol(
    ctx: Context,
    name: Annotated[str, Field(description="name, Type.method or Type::method")],
    stores: Stores = [],  # noqa: B006
) -> str:
    """Where a name is defined: every definition, best first."""
    scope = await scope_of(ctx, stores)
    hits = await call(ctx, "symbol", name, scope=scope)
    return answers.definitions(hits, name, len({h.store for h in hits}) > 1)

@tool(WRITES)
async def semlith_index(
    ctx: Context,
    paths: Annotated[list[str], Field(description="Under a served root")] = [],  # noqa: B006
    stores: Annotated[list[str], Field(description="One store name")] = [],  # noqa: B006
    time_budget: Annotated[float, Field(ge=1, le=600)] = 45,
) -> str:
    """Bring the index up to date now. Works for time_budget seconds; call again
    to continue when it says files are left."""
    report = await call(ctx, "index", paths or (), store=one_store(stores),
                        time_budget=time_budget)
    return str(report.summary())

@tool(WRITES)
async def semlith_forget(
    ctx: Context,
    path: Annotated[str, Field(description="File or folder under a served root")],
    stores: Annotated[list[str], Field(description="One store name")] = [],  # noqa: B006
) -> str:
    """Remove a file or folder from the index (files on disk are untouched)."""
    removed = await call(ctx, "forget", path, store=one_store(stores))
    return f"forgot {counted(removed, 'file')}"


@tool(READ_ONLY)
async def semlith_outline(
    ctx: Context,
    target: Annotated[str, Field(description="A file's path or any locator")],
    stores: Stores = [],  # noqa: B006
    max_tokens: Budget = 2000,
) -> str:
    """A file's definitions in order (lines, kind, name, signature): its map."""
    found = await call(ctx, "outline", target, scope=await scope_of(ctx, stores))
    return answers.outline(found, target, max_tokens)
