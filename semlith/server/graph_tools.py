"""The code graph's MCP tools (issue #22): semlith_brief, semlith_neighbors,
semlith_impact, semlith_path. Module-level functions over the lifespan's `ToolContext`
(registry.py); each calls one `Library` method and answers in lines an agent reads,
bounded by `max_tokens` and saying what it left out."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from semlith.server.registry import READ_ONLY, Budget, Stores, call, scope_of, tool
from semlith.types import Filters, counted
from semlith.types.graph import Brief, GraphEdge, GraphNode, GraphPath, Impact, Neighbors

Name = Annotated[str, Field(description="f or Type.method")]
# Globs choose among definitions of one name (`*.ts` stands for an extension): ext and
# lang, which the CLI has, would put tools/list over its 1,000 tokens.
Paths = Annotated[list[str], Field(description="Globs pick the definition")]


def _edge(e: GraphEdge, depth: bool = False) -> str:
    hops = f"{e.depth} " if depth else ""
    if not e.path:
        return f"{hops}{e.name} ambiguous ({e.candidates} definitions) at {e.evidence}"
    return f"{hops}{e.name} {e.locator} {e.kind} {e.status} at {e.evidence}"


def _tail(omitted: dict[str, int], shown: dict[str, int], others: int,
          alternatives: tuple[GraphNode, ...] = ()) -> list[str]:
    lines = [f"{n} of {n + omitted[part]} {part} shown"
             + (f"; {counted(omitted['files'], 'more file')}" if omitted.get("files") else "")
             for part, n in shown.items() if omitted.get(part)]
    if omitted.get("ambiguous_callers"):
        lines.append(f"{counted(omitted['ambiguous_callers'], 'ambiguous caller')} left out "
                     "(all=true)")
    if omitted.get("unread_files"):
        lines.append(f"{counted(omitted['unread_files'], 'file')} unread: callers there unknown")
    if omitted.get("outside_callees"):
        lines.append(f"{counted(omitted['outside_callees'], 'call')} outside the project "
                     "not listed")
    if omitted.get("value_binding"):
        lines.append("bound by assignment: calls through it call its value, not counted")
    if omitted.get("unwalked"):
        lines.append(f"{counted(omitted['unwalked'], 'caller')} not followed: budget or "
                     "limit reached")
    if others:
        named = ", ".join(a.name for a in alternatives)
        lines.append(f"{counted(others, 'other definition')} of this name"
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
        out.append(f"({counted(a.trimmed, 'more line')}: semlith_read {a.hits[0].locator})")
    dropped = [f"{n} {part}" for part, n in a.omitted.items() if n]
    if dropped:
        out.append(f"({' and '.join(dropped)} not shown: semlith_neighbors {a.symbol})")
    return "\n".join(out)


@tool(READ_ONLY)
async def semlith_brief(
    ctx: Context,
    question: Annotated[str, Field(description="Question or error")],
    stores: Stores = [], max_tokens: Budget = 2000,  # noqa: B006
) -> str:
    """One call: best locators, callers/callees, the best text."""
    answer = await call(ctx, "brief", question, budget=max_tokens,
                        scope=await scope_of(ctx, stores))
    return brief_text(answer)

@tool(READ_ONLY)
async def semlith_neighbors(
    ctx: Context, name: Name,
    kind: Annotated[list[str], Field(description="calls imports inherits contains")] = [],  # noqa: B006
    all: Annotated[bool, Field(description="Ambiguous edges too")] = False,
    path: Paths = [], stores: Stores = [], max_tokens: Budget = 4000,  # noqa: B006
) -> str:
    """Callers and callees, each with its status."""
    answer = await call(ctx, "neighbors", name, kinds=tuple(kind),
                        filters=Filters(tuple(path)),
                        all_edges=all, budget=max_tokens,
                        scope=await scope_of(ctx, stores))
    return neighbors_text(answer)

@tool(READ_ONLY)
async def semlith_impact(
    ctx: Context, name: Name,
    depth: Annotated[int, Field(description="Hops back")] = 3,
    path: Paths = [], stores: Stores = [], max_tokens: Budget = 4000,  # noqa: B006
) -> str:
    """What a change reaches: callers up to depth hops."""
    answer = await call(ctx, "impact", name, depth=depth,
                        filters=Filters(tuple(path)), budget=max_tokens,
                        scope=await scope_of(ctx, stores))
    return impact_text(answer)

@tool(READ_ONLY)
async def semlith_path(
    ctx: Context, source: Name, target: Name,
    all_edges: Annotated[bool, Field(description="Cross ambiguous calls")] = False,
    stores: Stores = [],  # noqa: B006
) -> str:
    """Shortest call chain from source to target over settled edges."""
    answer = await call(ctx, "path", source, target, all_edges=all_edges,
                        scope=await scope_of(ctx, stores))
    return path_text(answer)
