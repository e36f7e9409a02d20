"""neighbors, impact, path, brief: how code connects (issue #22). Nothing found exits 1."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from semlith.cli.base import emit_json, errors, json_option, library, main, scope, store_option
from semlith.types import Filters, counted
from semlith.types.graph import Brief, GraphEdge, GraphNode, GraphPath, Neighbors

KINDS = ("calls", "imports", "inherits", "contains")


def _graph_options(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option("--budget", default=4000, show_default=True, metavar="TOKENS",
                        help="At most this many tokens (x4 characters) of answer; a "
                        "line says what was left out.")(func)
    func = click.option("--lang", multiple=True, metavar="LANG",
                        help="Choose the definition in this language.")(func)
    func = click.option("--ext", multiple=True, metavar="EXT",
                        help="Choose the definition in files with this extension.")(func)
    func = click.option("--path", "paths", multiple=True, metavar="GLOB",
                        help="Choose the definition in paths matching GLOB.")(func)
    return func


def _node(n: GraphNode) -> str:
    return f"{n.kind} {n.name}  {n.locator}"


def _row(e: GraphEdge, *, depth: bool = False) -> str:
    hops = f"{e.depth} " if depth else ""
    if not e.path:  # an ambiguous call shown collapsed
        return (f"  {hops}{e.name}  ({e.status}: {e.candidates} definitions)  "
                f"at {e.evidence}")
    many = f": 1 of {e.candidates}" if e.status == "ambiguous" else ""
    return f"  {hops}{e.name}  {e.locator}  [{e.kind}, {e.status}{many}]  at {e.evidence}"


def _omitted(omitted: dict[str, int], shown: dict[str, int]) -> list[str]:
    lines = []
    for part, count in shown.items():
        if omitted.get(part):
            lines.append(f"{count} of {count + omitted[part]} {part.replace('_', ' ')} shown"
                         + (f"; {counted(omitted['files'], 'more file')}"
                            if omitted.get("files") else "")
                         + " (raise --budget)")
    if omitted.get("ambiguous_callers"):
        lines.append(f"{counted(omitted['ambiguous_callers'], 'ambiguous call site')} not shown "
                     "(--all-edges shows them)")
    if omitted.get("unread_files"):
        n = omitted["unread_files"]
        lines.append(f"{n} {'file' if n == 1 else 'files'}' edges could not be read: "
                     "callers there are unknown".replace("file'", "file's"))
    if omitted.get("outside_callees"):
        lines.append(f"{omitted['outside_callees']} calls into builtins, the standard "
                     "library or dependencies not listed")
    if omitted.get("value_binding"):
        lines.append("a name bound by assignment: a call through it calls its value and "
                     "is not counted here")
    if omitted.get("unwalked"):
        lines.append(f"{counted(omitted['unwalked'], 'caller')} not followed further: the "
                     "budget or the walk's limit was reached (raise --budget)")
    return lines


def _none(omitted: dict[str, int], part: str, empty: str = "  (none)") -> str:
    return "  (none shown)" if omitted.get(part) else empty


def _others(name: str, others: int, alternatives: Sequence[GraphNode],
            symbol: GraphNode) -> list[str]:
    if not others:
        return []
    named = ", ".join(f"{a.name} {a.locator}" for a in alternatives)
    more = f" and {others - len(alternatives)} more" if others > len(alternatives) else ""
    one_file = others == len(alternatives) and {a.path for a in alternatives} == {symbol.path}
    how = "name one as Type.method" if one_file else "choose with --path/--ext/--lang"
    return [f"{counted(others, 'other definition')} of {name}"
            + (f": {named}{more}" if named else "") + f"; {how}"]


def _filters(paths: Sequence[str], ext: Sequence[str], lang: Sequence[str]) -> Filters:
    return Filters(tuple(paths), tuple(ext), tuple(lang))


@main.command()
@click.argument("name")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(KINDS),
              help="Only edges of this kind (repeatable; default all).")
@click.option("--all-edges", "--all", "all_edges", is_flag=True,
              help="List every definition an ambiguous call could mean, and ambiguous "
              "callers.")
@_graph_options
@json_option
@store_option(multiple=True)
@click.pass_context
def neighbors(ctx: click.Context, name: str, kinds: tuple[str, ...], all_edges: bool,
              paths: tuple[str, ...], ext: tuple[str, ...], lang: tuple[str, ...],
              budget: int, as_json: bool, stores: tuple[str, ...]) -> None:
    """Callers and callees of NAME (`f`, `Type.method`), each edge with its status:
    extracted (in the caller's file), resolved (across files) or ambiguous.

    A call of a class is a call of its constructor (`Route(...)` calls
    `Route.__init__`). Subclasses, container and importers, and bases and members, are
    listed apart from calls. A count of callers reads "≥ n" when calls may be missing
    (ambiguous call sites, files whose edges could not be read, a name bound by
    assignment, whose calls call its value).

    --json: {"symbol": {store, name, path, start_line, end_line, kind}, "callers": [...],
    "callees": [...], "links_in": [...], "links_out": [...], "omitted": {callers,
    callees, links_in, links_out, files, ambiguous_callers, unread_files,
    outside_callees, value_binding}, "others", "alternatives": [symbols]}. Each entry: name
    (qualified), path, start_line, end_line (the definition at the other end; empty for
    a collapsed ambiguous callee), line and site (the call site), kind, status,
    candidates, depth.

    Exits 1 when NAME has no definition (the nearest names are listed).

    \b
    Examples:
      semlith neighbors RetryPolicy.delay
      semlith neighbors call_with_retry --kind calls --all-edges
      semlith neighbors Router --kind inherits --json
    """
    with errors(as_json):
        answer = library(ctx).neighbors(name, kinds=kinds, filters=_filters(paths, ext, lang),
                                        all_edges=all_edges, budget=budget,
                                        scope=scope(ctx, stores))
    if as_json:
        emit_json(answer.as_json())
        return
    click.echo("\n".join(_neighbors_lines(name, answer)))


@main.command()
@click.argument("name")
@click.option("--depth", default=3, show_default=True, type=click.IntRange(min=1), metavar="N",
              help="Hops to follow back.")
@click.option("--all-edges", "--all", "all_edges", is_flag=True,
              help="Follow ambiguous calls too.")
@_graph_options
@json_option
@store_option(multiple=True)
@click.pass_context
def impact(ctx: click.Context, name: str, depth: int, all_edges: bool,
           paths: tuple[str, ...], ext: tuple[str, ...], lang: tuple[str, ...], budget: int,
           as_json: bool, stores: tuple[str, ...]) -> None:
    """What a change to NAME reaches: its callers, theirs, ... up to --depth hops,
    fewest hops first, each with its call site.

    --json: {"symbol", "entries", "omitted", "others"}; entries as neighbors', `depth`
    the hops from NAME.

    Exits 1 when NAME has no definition.

    \b
    Examples:
      semlith impact hash_password --depth 2
      semlith impact SignToken --path 'auth/*' --json
    """
    with errors(as_json):
        answer = library(ctx).impact(name, depth=depth, filters=_filters(paths, ext, lang),
                                     all_edges=all_edges, budget=budget,
                                     scope=scope(ctx, stores))
    if as_json:
        emit_json(answer.as_json())
        return
    out = [_node(answer.symbol), f"reached from ({answer.entries_counted}):"]
    out += [_row(e, depth=True) for e in answer.entries] or [
        _none(answer.omitted, "entries", "  (nothing calls it)")]
    out += _omitted(answer.omitted, {"entries": len(answer.entries)})
    click.echo("\n".join(out + _others(name, answer.others, answer.alternatives,
                                       answer.symbol)))


@main.command()
@click.argument("source")
@click.argument("target")
@click.option("--all-edges", "--all", "all_edges", is_flag=True,
              help="Walk ambiguous calls too: the answer is then a hypothesis.")
@_graph_options
@json_option
@store_option(multiple=True)
@click.pass_context
def path(ctx: click.Context, source: str, target: str, all_edges: bool,
         paths: tuple[str, ...], ext: tuple[str, ...], lang: tuple[str, ...], budget: int,
         as_json: bool, stores: tuple[str, ...]) -> None:
    """The shortest chain of calls from SOURCE to TARGET, over settled edges only: it
    never crosses an ambiguous call, and says which one it refused.

    --json: {"source", "target", "hops", "length", "omitted", "hypothesis", "blocked",
    "stopped"}; each hop an entry as neighbors' (the definition called, `depth` its
    number) plus `evidence`, the call's `path:line`. A chain longer than --budget keeps
    its first and last hops (`omitted.hops` between); `stopped`: the walk reached its
    limit before finding a chain.

    Exits 1 when they are not connected (or a name has no definition).

    \b
    Examples:
      semlith path verify_password hash_password
      semlith path main save --all-edges --json   # through ambiguous calls too
    """
    with errors(as_json):
        answer = library(ctx).path(source, target, filters=_filters(paths, ext, lang),
                                   all_edges=all_edges, budget=budget,
                                   scope=scope(ctx, stores))
    if as_json:
        emit_json(dict(answer.as_json(),
                       hops=[dict(h.as_json(), evidence=h.evidence) for h in answer.hops]))
    else:
        click.echo("\n".join(_path_lines(answer)))
    if not answer.length:
        sys.exit(1)


def _neighbors_lines(name: str, answer: Neighbors) -> list[str]:
    out = [_node(answer.symbol), f"callers ({answer.callers_counted}):"]
    out += [_row(e) for e in answer.callers] or [_none(answer.omitted, "callers")]
    out += [f"callees ({len(answer.callees) + answer.omitted.get('callees', 0)}):"]
    out += [_row(e) for e in answer.callees] or [_none(answer.omitted, "callees")]
    if answer.links_in:
        out += [f"subclasses, container, importers ({len(answer.links_in)}):"]
        out += [_row(e) for e in answer.links_in]
    if answer.links_out:
        out += [f"bases, members ({len(answer.links_out)}):"]
        out += [_row(e) for e in answer.links_out]
    out += _omitted(answer.omitted, {"callers": len(answer.callers),
                                     "callees": len(answer.callees),
                                     "links_in": len(answer.links_in),
                                     "links_out": len(answer.links_out)})
    return out + _others(name, answer.others, answer.alternatives, answer.symbol)


def _path_lines(answer: GraphPath) -> list[str]:
    if not answer.length:
        if answer.stopped:
            return [f"no chain from {answer.source.name} to {answer.target.name} found "
                    "before the walk's limit of definitions: they may still be connected"]
        why = (f"; it would cross {answer.blocked}, which is not settled (--all-edges "
               "walks it as a hypothesis)") if answer.blocked else ""
        return [f"no chain of settled calls from {answer.source.name} to "
                f"{answer.target.name}{why}"]
    head = ("HYPOTHESIS (crosses ambiguous calls, not a finding): " if answer.hypothesis
            else "") + (f"{answer.source.name} -> {answer.target.name} in "
                        f"{counted(answer.length, 'hop')}")
    out = [head, f"  {_node(answer.source)}"]
    if not answer.hops:
        out.append("  (no hop fits --budget: raise it)")
    last = 0
    for h in answer.hops:
        if h.depth != last + 1:
            out.append(f"  ... {counted(h.depth - last - 1, 'hop')} not shown (raise --budget)")
        out.append(f"  -> {h.name}  {h.locator}  [{h.status}]  called at {h.evidence}")
        last = h.depth
    return out


@main.command()
@click.argument("question")
@click.option("--budget", default=2000, show_default=True, metavar="TOKENS",
              help="The whole answer within this many tokens (x4 characters).")
@json_option
@store_option(multiple=True)
@click.pass_context
def brief(ctx: click.Context, question: str, budget: int, as_json: bool,
          stores: tuple[str, ...]) -> None:
    """One answer for QUESTION: the best locators, the callers and callees of the
    definition the best hit is in, and that hit's text (trimmed last to fit --budget).

    Exits 1 when nothing is found.

    \b
    Examples:
      semlith brief "where are session tokens verified"
      semlith brief "how is the cache evicted" --budget 800 --json
    """
    with errors(as_json):
        answer = library(ctx).brief(question, budget=budget, scope=scope(ctx, stores))
    for note in answer.notes:
        click.echo(f"semlith: note: {note}", err=True)
    if as_json:
        emit_json(answer.as_json())
    elif answer.hits:
        click.echo(brief_text(answer))
    if not answer.hits:
        sys.exit(1)


def brief_text(answer: Brief) -> str:
    out = [f"{h.locator}  {h.symbol}".rstrip() for h in answer.hits]
    if answer.callers or answer.callees:
        out.append(f"{answer.symbol}:")
        out += [f"  called by {e.name} at {e.evidence} [{e.status}]" for e in answer.callers]
        out += [f"  calls {e.name} {e.locator} [{e.status}]" if e.path else
                f"  calls {e.name} ({e.candidates} definitions)" for e in answer.callees]
    out += ["", answer.text] if answer.text else []
    if answer.trimmed:
        out.append(f"({counted(answer.trimmed, 'more line')}: semlith read "
                   f"{answer.hits[0].locator})")
    dropped = [f"{n} {part}" for part, n in answer.omitted.items() if n]
    if dropped:
        out.append(f"({' and '.join(dropped)} not shown: semlith neighbors {answer.symbol})")
    return "\n".join(out)
