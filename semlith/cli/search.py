"""search, symbol, read, outline: asking the index. No result exits 1, as grep and ripgrep do."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from semlith.base.names import escape_name
from semlith.cli import colour, output
from semlith.cli.base import emit_json, errors, json_option, library, main, scope, store_option
from semlith.cli.colour import Style, color_option, wanted
from semlith.library import MAX_K
from semlith.types import Filters, Scope
from semlith.types.grep import rows


def _filter_options(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option("--lang", multiple=True, metavar="LANG",
                        help="Only this language (repeatable; !LANG excludes).")(func)
    func = click.option("--ext", multiple=True, metavar="EXT",
                        help="Only this extension (repeatable; !EXT excludes).")(func)
    return click.option("--path", multiple=True, metavar="GLOB",
                        help="Only paths matching GLOB; relative patterns match anywhere "
                        "(repeatable; !GLOB excludes).")(func)


def _grep_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """ripgrep's context and per-file options, for --exact/--regex."""
    for option in reversed([
        click.option("-A", "--after-context", "after", type=click.IntRange(0, 50),
                     metavar="N", help="With --exact/--regex: N lines after each match."),
        click.option("-B", "--before-context", "before", type=click.IntRange(0, 50),
                     metavar="N", help="With --exact/--regex: N lines before each match."),
        click.option("-C", "--context", "context", type=click.IntRange(0, 50), default=0,
                     metavar="N", help="With --exact/--regex: N lines either side "
                     "(-A and -B override it on their side)."),
        click.option("-l", "--files-with-matches", "files_only", is_flag=True,
                     help="With --exact/--regex: only the paths of files with a match."),
        click.option("-c", "--count", "count", is_flag=True,
                     help="With --exact/--regex: `path:N`, the matching lines per file."),
        click.option("--definitions/--no-definitions", default=True, show_default=True,
                     help="With --exact/--regex: a `path=N=kind name` line naming the "
                     "definition the matches below it are in."),
    ]):
        func = option(func)
    return func


@main.command()
@click.argument("query", required=False, default="")
@click.option("-k", "--limit", "k", default=10, show_default=True,
              type=click.IntRange(1, MAX_K), metavar="N",  # -k 0: a usage error (exit 2)
              help="Number of results (--exact/--regex: matching lines, default 100).")
@click.option("--image", "image", metavar="FILE",
              help="Find images like FILE (image search; QUERY is then optional).")
@click.option("--exact", "exact", metavar="TEXT", help="Lines containing TEXT, literally.")
@click.option("--regex", "regex", metavar="PATTERN",
              help="Lines matching a Python regex, run in linear time (backreferences "
              "and lookaround are refused).")
@_grep_options
@color_option
@json_option
@store_option(multiple=True)
@_filter_options
@click.pass_context
def search(ctx: click.Context, /, query: str, k: int, image: str | None, exact: str | None,
           regex: str | None, color: str, as_json: bool, stores: tuple[str, ...],
           path: tuple[str, ...], ext: tuple[str, ...], lang: tuple[str, ...],
           **shape: Any) -> None:
    """Search the index for QUERY (plain English, an identifier, or both), or for the
    lines that contain --exact TEXT or match --regex PATTERN, as ripgrep prints them.

    Exits 1 when nothing is found.

    \b
    Examples:
      semlith search "where are session tokens verified" -k 3
      semlith search RetryPolicy --lang python --path '!tests' --json
      semlith search --exact 'TODO(' -C 2 --ext py
      semlith search --regex 'def \\w+_retry' -A 3 --color always | less -R
      semlith search --regex 'import (os|sys)' --count
      semlith search --image diagram.png            # images like this one
    """
    filters = Filters(path, ext, lang)
    style = Style(not as_json and wanted(color))
    if exact is not None or regex is not None:
        if query or image is not None or (exact is not None and regex is not None):
            raise click.UsageError("--exact and --regex take the pattern; give one of them, "
                                   "without QUERY or --image")
        if shape["files_only"] and shape["count"]:
            raise click.UsageError("give -l/--files-with-matches or -c/--count, not both")
        limit = 100 if ctx.get_parameter_source("k") == click.core.ParameterSource.DEFAULT \
            else k
        _grep(ctx, exact if regex is None else regex, regex is not None, limit, shape,
              style, as_json, scope(ctx, stores), filters)
        return
    if not query and image is None:
        raise click.UsageError("give a QUERY, or --image FILE")
    with errors(as_json):
        answer = library(ctx).search(query, k=k, filters=filters,
                                     scope=scope(ctx, stores), image=image)
    for note in answer.notes:
        click.echo(f"semlith: note: {note}", err=True)
    if as_json:
        emit_json([h.as_json() for h in answer.hits])
    elif answer.hits:
        style.echo(output.hits(answer.hits, multi_store=len(answer.stores) > 1, style=style))
    if not answer.hits:
        sys.exit(1)


def _grep(ctx: click.Context, pattern: str | None, regex: bool, limit: int,
          shape: dict[str, Any], style: Style, as_json: bool, where: Scope, filters: Filters
          ) -> None:
    """`search --exact/--regex`: ripgrep's lines; the rest counted on stderr."""
    with errors(as_json):
        found = library(ctx).grep(
            pattern or "", regex=regex, context=shape["context"], before=shape["before"],
            after=shape["after"], limit=limit, files_only=shape["files_only"],
            count=shape["count"], filters=filters, scope=where)
    for note in found.notes:
        click.echo(f"semlith: note: {note}", err=True)
    multi = len(found.stores) > 1
    if as_json:
        emit_json(found.as_json())
    elif shape["files_only"] or shape["count"]:
        for name, n in zip(found.files, found.counts, strict=True):
            shown = style.paint(escape_name(name if multi else name.split(":", 1)[1]), "path")
            style.echo(f"{shown}:{n}" if shape["count"] else shown)
    elif found.matches:
        sides = [shape[side] if shape[side] is not None else shape["context"]
                 for side in ("before", "after")]
        style.echo("\n".join(colour.row(r, style) for r in rows(
            found.matches, multi_store=multi, definitions=shape["definitions"],
            context=any(sides))))
    if found.more and not as_json:
        click.echo(f"semlith: {found.more} not shown; raise --limit or narrow the search",
                   err=True)
    if not found.files:
        sys.exit(1)


@main.command()
@click.argument("name")
@json_option
@store_option(multiple=True)
@click.pass_context
def symbol(ctx: click.Context, name: str, as_json: bool, stores: tuple[str, ...]) -> None:
    """Where NAME is defined: every definition, best first (`Type.method`, `Type::method`).

    Exits 1 when there is none.

    \b
    Examples:
      semlith symbol Router.add
      semlith symbol 'Store::open' --json
    """
    with errors(as_json):
        hits = library(ctx).symbol(name, scope=scope(ctx, stores))
    if as_json:
        emit_json([h.as_json() for h in hits])
    multi = len({h.store for h in hits}) > 1
    for hit in [] if as_json else hits:
        where = f"[{hit.store}] " if multi else ""
        click.echo(f"{where}{hit.locator}  {hit.kind} {hit.qualname}\n    {hit.signature}")
        for label, calls in (("called by", hit.callers), ("calls", hit.callees)):
            if calls:
                click.echo(f"    {label}: {', '.join(calls)}")
    if not hits:
        sys.exit(1)


@main.command()
@click.argument("target")
@json_option
@store_option(multiple=True)
@click.pass_context
def read(ctx: click.Context, target: str, as_json: bool, stores: tuple[str, ...]) -> None:
    """Print lines of an indexed file, as indexed: TARGET is any locator search or
    symbol prints (`path:start-end`, `store:path:start-end`, `path`) or a symbol name.

    \b
    Examples:
      semlith read auth/tokens.go:24-39
      semlith read app:net/retry.py:10     # store:path:line, as a search prints it
      semlith read RetryPolicy.delay
    """
    with errors(as_json):
        passage = library(ctx).read(target, scope=scope(ctx, stores))
    if as_json:
        emit_json(passage.as_json())
    else:
        click.echo(output.passage(passage))


@main.command()
@click.argument("target")
@json_option
@store_option(multiple=True)
@click.pass_context
def outline(ctx: click.Context, target: str, as_json: bool, stores: tuple[str, ...]) -> None:
    """The definitions of an indexed file in order, with their lines: a map of TARGET
    (a path, or any locator search prints) before reading it.

    \b
    Examples:
      semlith outline net/retry.py
      semlith outline app:net/retry.py --json
    """
    with errors(as_json):
        found = library(ctx).outline(target, scope=scope(ctx, stores))
    if as_json:
        emit_json([d.as_json() for d in found])
        return
    for d in found:
        click.echo(f"{d.start_line}-{d.end_line}  {d.kind} {d.qualname or d.name}"
                   + (f"  · {d.signature}" if d.signature else ""))
