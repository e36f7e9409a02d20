"""The code graph's MCP tools (issue #22): semlith_neighbors, semlith_impact,
semlith_path. Registered by `tools.build_mcp`; each calls one `Library` method and
answers in lines an agent reads, bounded by `max_tokens` and saying what it left out."""

# No `from __future__ import annotations`: the tools' annotations are evaluated where
# they are defined, in register(), from what tools.build_mcp hands over (this module
# does not import tools.py, which imports it).
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from semlith.library import Library
from semlith.types.graph import Brief, GraphEdge, GraphNode, GraphPath, Impact, Neighbors

if TYPE_CHECKING:
    from semlith.server.tools import _Registry
from semlith.types import Filters

# Bounds are checked by the library (one sentence back): a schema's min/max cost
# tools/list bytes it does not have.
Tokens = int
Name = Annotated[str, Field(description="f or Type.method")]
# Globs choose among definitions of one name (`*.ts` stands for an extension): ext and
# lang, which the CLI has, would put tools/list over its 1,000 tokens.
Paths = Annotated[list[str], Field(description="Globs choose the definition")]


def _edge(e: GraphEdge, depth: bool = False) -> str:
    hops = f"{e.depth} " if depth else ""
    if not e.path:
        return f"{hops}{e.name} ambiguous ({e.candidates} definitions) at {e.evidence}"
    return f"{hops}{e.name} {e.locator} {e.kind} {e.status} at {e.evidence}"


def _tail(omitted: dict[str, int], shown: dict[str, int], others: int,
          alternatives: tuple[GraphNode, ...] = ()) -> list[str]:
    lines = [f"{n} of {n + omitted[part]} {part} shown"
             + (f"; {omitted['files']} more files" if omitted.get("files") else "")
             for part, n in shown.items() if omitted.get(part)]
    if omitted.get("ambiguous_callers"):
        lines.append(f"{omitted['ambiguous_callers']} ambiguous callers left out (all=true)")
    if omitted.get("unread_files"):
        lines.append(f"{omitted['unread_files']} files unread: callers there unknown")
    if omitted.get("outside_callees"):
        lines.append(f"{omitted['outside_callees']} calls outside the project not listed")
    if omitted.get("unwalked"):
        lines.append(f"{omitted['unwalked']} callers not followed: budget or limit reached")
    if others:
        named = ", ".join(a.name for a in alternatives)
        lines.append(f"{others} other definitions of this name"
                     + (f" ({named})" if named else "") + "; Type.method or path globs choose")
    return lines


def neighbors_text(a: Neighbors) -> str:
    s = a.symbol
    out = [f"{s.kind} {s.name} {s.locator}", f"callers ({a.callers_counted}):"]
    out += [_edge(e) for e in a.callers] or ["(none)"]
    out += ["callees:"] + ([_edge(e) for e in a.callees] or ["(none)"])
    out += (["subclasses, container, importers:"] + [_edge(e) for e in a.links_in]
            if a.links_in else [])
    out += ["bases, members:"] + [_edge(e) for e in a.links_out] if a.links_out else []
    out += _tail(a.omitted, {"callers": len(a.callers), "callees": len(a.callees),
                             "links_in": len(a.links_in), "links_out": len(a.links_out)},
                 a.others, a.alternatives)
    return "\n".join(out)


def impact_text(a: Impact) -> str:
    s = a.symbol
    out = [f"{s.kind} {s.name} {s.locator}; reached from ({a.entries_counted}; hops first):"]
    out += [_edge(e, depth=True) for e in a.entries] or ["(nothing calls it)"]
    return "\n".join(out + _tail(a.omitted, {"entries": len(a.entries)}, a.others,
                                 a.alternatives))


def path_text(a: GraphPath) -> str:
    if not a.length:
        if a.stopped:
            return (f"no chain from {a.source.name} to {a.target.name} found before the "
                    "walk's limit: they may still be connected")
        why = f"; it would cross {a.blocked}, not settled (all_edges=true walks it)" \
            if a.blocked else ""
        return f"no chain of settled calls from {a.source.name} to {a.target.name}{why}"
    head = "HYPOTHESIS, crosses ambiguous calls: " if a.hypothesis else ""
    out = [f"{head}{a.source.name} {a.source.locator} ({a.length} hops)"]
    last = 0
    for h in a.hops:
        if h.depth != last + 1:
            out.append(f"... {h.depth - last - 1} hops not shown")
        out.append(f"-> {h.name} {h.locator} {h.status} called at {h.evidence}")
        last = h.depth
    return "\n".join(out)


def brief_text(a: Brief) -> str:
    if not a.hits:
        return "Nothing relevant found."
    out = [f"{h.locator} {h.symbol}".rstrip() for h in a.hits]
    out += [f"{a.symbol} called by {e.name} at {e.evidence}" for e in a.callers]
    out += [f"{a.symbol} calls {e.name} {e.locator}" if e.path else
            f"{a.symbol} calls {e.name} (ambiguous)" for e in a.callees]
    out += ["", a.text] if a.text else []
    if a.trimmed:
        out.append(f"({a.trimmed} more lines: semlith_read {a.hits[0].locator})")
    dropped = [f"{n} {part}" for part, n in a.omitted.items() if n]
    if dropped:
        out.append(f"({' and '.join(dropped)} not shown: semlith_neighbors {a.symbol})")
    return "\n".join(out)


def register(mcp: "_Registry", library: Library, call: Callable[..., Awaitable[Any]], *,
             read_only: Any, answering: Callable[..., Any],
             scope_of: Callable[..., Awaitable[Any]]) -> None:
    """Add the graph tools to `mcp` (tools.py's registry), with its helpers. Their
    `stores` is the other tools' (names; ["*"]: all), described once there."""

    @mcp.tool(read_only)
    @answering
    async def semlith_brief(
        ctx: Context, question: str, stores: list[str] = [],  # noqa: B006
        max_tokens: Tokens = 2000,
    ) -> str:
        """One call: best locators, callers/callees, the best span's text."""
        answer = await call(library.brief, question, budget=max_tokens,
                            scope=await scope_of(ctx, stores))
        return brief_text(answer)

    @mcp.tool(read_only)
    @answering
    async def semlith_neighbors(
        ctx: Context, name: Name,
        kind: list[str] = [],  # noqa: B006 - calls, imports, inherits, contains
        all: bool = False, path: Paths = [], stores: list[str] = [],  # noqa: B006
        max_tokens: Tokens = 4000,
    ) -> str:
        """Callers and callees, each edge with its status."""
        answer = await call(library.neighbors, name, kinds=tuple(kind),
                            filters=Filters(tuple(path)),
                            all_edges=all, budget=max_tokens,
                            scope=await scope_of(ctx, stores))
        return neighbors_text(answer)

    @mcp.tool(read_only)
    @answering
    async def semlith_impact(
        ctx: Context, name: Name, depth: int = 3,
        path: Paths = [], stores: list[str] = [], max_tokens: Tokens = 4000,  # noqa: B006
    ) -> str:
        """What a change reaches: callers up to depth hops, with call sites."""
        answer = await call(library.impact, name, depth=depth,
                            filters=Filters(tuple(path)), budget=max_tokens,
                            scope=await scope_of(ctx, stores))
        return impact_text(answer)

    @mcp.tool(read_only)
    @answering
    async def semlith_path(
        ctx: Context, source: Name, target: Name, all_edges: bool = False,
        stores: list[str] = [],  # noqa: B006
    ) -> str:
        """Shortest call chain from source to target over settled edges."""
        answer = await call(library.path, source, target, all_edges=all_edges,
                            scope=await scope_of(ctx, stores))
        return path_text(answer)
