"""The MCP tools, defined once; every transport (HTTP, the stdio proxy) serves these.

Descriptions are written for an agent deciding which tool to call, and kept short: the
whole `tools/list` stays under 1,000 tokens (a test checks). Failures come back as a
tool result with `isError` and one sentence the agent can act on.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from semlith import __version__
from semlith.errors import SemlithError
from semlith.search import Filters
from semlith.server import answers
from semlith.server.fleet import Fleet
from semlith.symbols import find_symbols
from semlith.watch import describe_watch

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
Store = Annotated[str, Field(description="Store name; default: all")]
INSTRUCTIONS = ("Semantic + keyword code search over the user's indexed folders. Prefer "
                "semlith_search to grep for questions; semlith_read to see exact lines.")


def _failure(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def _answers(func: Callable[..., str]) -> Callable[..., str | CallToolResult]:
    """Turn domain errors into an `isError` result with their one-line message."""
    @wraps(func)
    def run(*args: Any, **kwargs: Any) -> str | CallToolResult:
        try:
            return func(*args, **kwargs)
        except (SemlithError, ValueError, PermissionError) as exc:
            return _failure(str(exc))
    return run


def _compact(schema: Any) -> Any:
    """A JSON schema without pydantic's titles: tools/list stays small (< 1,000 tokens)."""
    if isinstance(schema, dict):
        return {k: _compact(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_compact(v) for v in schema]
    return schema


class _Registry:
    """Collects tool functions; `server()` builds the MCPServer with compact schemas."""

    def __init__(self) -> None:
        self.tools: list[Tool] = []

    def tool(self, annotations: ToolAnnotations, structured_output: bool = False
             ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(func: Callable[..., Any]) -> Callable[..., Any]:
            tool = Tool.from_function(func, annotations=annotations,
                                      structured_output=structured_output)
            tool.parameters = _compact(tool.parameters)
            tool.description = " ".join(tool.description.split())
            self.tools.append(tool)
            return func
        return register

    def server(self) -> MCPServer:
        return MCPServer("semlith", version=__version__, instructions=INSTRUCTIONS,
                         log_level="WARNING", tools=self.tools)


def build_mcp(fleet: Fleet) -> MCPServer:
    """An MCPServer whose tools answer from `fleet`."""
    mcp = _Registry()

    @mcp.tool(annotations=READ_ONLY, structured_output=False)
    @_answers
    def semlith_search(
        query: Annotated[str, Field(description="Plain English and/or identifiers")],
        k: Annotated[int, Field(ge=1, le=50)] = 10,
        path: Annotated[list[str], Field(description="Globs; !glob excludes")] = [],  # noqa: B006
        ext: list[str] = [],  # noqa: B006 - pydantic copies defaults
        lang: list[str] = [],  # noqa: B006
        store: Store = "",
        format: Literal["locate", "excerpt"] = "locate",
        max_tokens: Annotated[int, Field(ge=100, le=20000)] = 2000,
    ) -> str:
        """Find the code or docs that answer a question. locate: one line per hit,
        grouped by file; excerpt: hit text. Then semlith_read the lines you need."""
        filters = Filters(tuple(path or ()), tuple(ext or ()), tuple(lang or ()))
        hits = fleet.search(query, k, filters, store)
        multi = len(fleet.choose(store)) > 1
        if format == "excerpt":
            return answers.excerpts(hits, max_tokens, multi)
        return answers.locate(hits, query, max_tokens, multi)

    @mcp.tool(annotations=READ_ONLY, structured_output=False)
    @_answers
    def semlith_read(
        target: Annotated[str, Field(description="path:start-end, path:line, or a symbol")],
        store: Store = "",
    ) -> str:
        """Exact lines of an indexed file (numbered), or the definition of a symbol."""
        chosen = fleet.choose(store)
        span = answers.parse_locator(target)
        for held in chosen:
            if held.store.catalog.file(span.path) is not None:
                return answers.read_lines(held, span)
        if span.start is None:
            found = find_symbols([(h.name, h.store) for h in chosen], target, limit=1)
            if found:
                hit = found[0]
                held = fleet.choose(hit.store)[0]
                return answers.read_lines(held, answers.Span(hit.path, hit.start_line,
                                                             hit.end_line))
        raise answers.BadTarget(f"{span.path!r} is neither an indexed file nor a symbol; "
                                "semlith_files lists files, semlith_search finds code")

    @mcp.tool(annotations=READ_ONLY, structured_output=False)
    @_answers
    def semlith_files(
        store: Store = "",
        skipped: Annotated[bool, Field(description="List skipped paths and why")] = False,
        limit: Annotated[int, Field(ge=1, le=5000)] = 500,
    ) -> str:
        """What is indexed (or, with skipped, what was left out and why)."""
        lines: list[str] = []
        for held in fleet.choose(store):
            catalog = held.store.catalog
            if skipped:
                rows = [f"{r.path}\t{r.reason}{f' ({r.detail})' if r.detail else ''}"
                        for r in catalog.skipped().values()]
            else:
                rows = [f.path + ("" if f.hash else "\t(pending)") for f in catalog.files()]
            lines += [f"[{held.name}] {len(rows)} {'skipped' if skipped else 'files'}",
                      *rows[:limit]]
            if len(rows) > limit:
                lines.append(f"({len(rows) - limit} more not shown; raise limit)")
        return "\n".join(lines)

    @mcp.tool(annotations=READ_ONLY, structured_output=False)
    @_answers
    def semlith_stats(store: Store = "") -> str:
        """Stores served, their size, model, and whether indexing is running."""
        out = []
        status = fleet.status()
        for held in fleet.choose(store):
            info = held.store.stats()
            out.append(f"{held.name}: root {info['root']}, {info['files']} files "
                       f"({info['pending_files']} pending), {info['chunks']} chunks, model "
                       f"{info['model']}, indexing {status['stores'][held.name]['indexing']}")
            watch = status["stores"][held.name]["watch"]
            if watch:
                out.append("  " + describe_watch(watch))
        if not status["model_ready"]:
            out.append(f"model: {status['model_error'] or 'loading'}")
        return "\n".join(out)

    @mcp.tool(annotations=READ_ONLY, structured_output=False)
    @_answers
    def semlith_symbol(
        name: Annotated[str, Field(description="name, Type.method or Type::method")],
        store: Store = "",
    ) -> str:
        """Where a function, class or type is defined: every definition, best first."""
        hits = find_symbols([(h.name, h.store) for h in fleet.choose(store)], name)
        if not hits:
            return f"No definition of {name!r}."
        return "\n".join(f"{h.locator} {h.kind} {h.qualname} · {h.signature}" for h in hits)

    @mcp.tool(annotations=WRITES, structured_output=False)
    @_answers
    def semlith_index(
        paths: Annotated[list[str], Field(description="Under a served root")] = [],  # noqa: B006
        store: Store = "",
        time_budget: Annotated[float, Field(ge=1, le=600)] = 45,
    ) -> str:
        """Bring the index up to date now. Works for time_budget seconds; call again
        to continue when it says files are left."""
        return fleet.index(store, paths or (), time_budget=time_budget).summary()

    @mcp.tool(annotations=WRITES, structured_output=False)
    @_answers
    def semlith_forget(
        path: Annotated[str, Field(description="File or folder under a served root")],
        store: Store = "",
    ) -> str:
        """Remove a file or folder from the index (files on disk are untouched)."""
        removed = fleet.forget(store, path)
        return f"forgot {removed} file{'s' if removed != 1 else ''}"

    return mcp.server()
