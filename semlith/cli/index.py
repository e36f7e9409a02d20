"""index, forget, watch, attach: changing what a store holds. With a daemon running,
each is done by the daemon (it is the stores' writer) and the output says so."""

from __future__ import annotations

import os
from pathlib import Path

import click

from semlith.cli import output
from semlith.cli.base import errors, library, main, store_option
from semlith.types import counted

DEBOUNCE_HELP = ("Seconds the tree must be quiet before a stream of changes is indexed; "
                 "a lone save waits 0.15 s.")


def _absolute(paths: tuple[Path, ...]) -> list[str]:
    """What was typed, resolved here (the daemon's folder is not the caller's)."""
    return [str(p.resolve()) for p in paths] or [str(Path.cwd().resolve())]


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@store_option()
@click.option("--model", help="Embedding model for a new store (fixed for its lifetime).")
@click.option("--backend", metavar="URI",
              help="Keep a new store's vectors and keyword index in Milvus: "
                   "milvus://HOST:PORT/COLLECTION or milvus+lite:///PATH.db "
                   "(docs/scale-out.md; token in SEMLITH_MILVUS_TOKEN).")
@click.option("--allow-system", is_flag=True,
              help="Create a store for a system or home folder (/, /etc, /usr, ~ itself), "
                   "which is refused without it.")
@click.option("--verify", is_flag=True,
              help="First check the store's vectors against its catalog (a Milvus store: "
                   "its rows) and repair: stray rows deleted, lost ones embedded again.")
@click.option("-v", "--verbose", is_flag=True, help="List every skipped file with its reason.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the summary line.")
@click.pass_context
def index(ctx: click.Context, paths: tuple[Path, ...], store: str | None, model: str | None,
          backend: str | None, allow_system: bool, verify: bool, verbose: bool,
          quiet: bool) -> None:
    """Index PATHS (default: the current folder) into a store, incrementally.

    The store is `.semlith` in the indexed folder (or the one found above it). Unchanged
    files cost nothing; a killed run resumes where it stopped. When the daemon runs, it
    does the indexing and serves the store from then on.

    \b
    Examples:
      semlith index                      # the current folder
      semlith index ~/src/app ~/notes -q
      semlith index . --model multilingual-e5-small-int8
      semlith index . --verify           # check the vectors against the catalog, repair
    """
    with errors(), output.progress_printer(quiet) as on_progress:
        report = library(ctx).index(_absolute(paths), store=_store(store), model=model,
                                    backend=backend, on_progress=on_progress,
                                    allow_system=allow_system, verify=verify,
                                    on_skip=output.skip_printer() if verbose else None)
    line = report.summary()
    if report.by_daemon:
        line += (f"; indexed by the running daemon (pid {report.by_daemon}), which serves "
                 "and watches this store")
    click.echo(line)
    if report.created and not report.by_daemon and not quiet:
        click.echo(f"note: created store {report.store!r}; `semlith serve` keeps it current "
                   "and serves it to agents", err=True)
    if report.name_taken_by:
        click.echo(f"note: the name {report.renamed_from!r} is taken (by "
                   f"{report.name_taken_by}); this store is {report.store!r}", err=True)
    for rel in report.truncated:
        click.echo(f"note: {rel} has more chunks than the per-file cap; indexed up to it",
                   err=True)


def _store(store: str | None) -> str | None:
    """A --store that names an existing path is made absolute for the daemon."""
    if store and Path(store).expanduser().exists():
        return str(Path(store).expanduser().resolve())
    if store and ("/" in store or "\\" in store):
        return str(Path(store).expanduser().absolute())  # a new store kept elsewhere
    return store


@main.command()
@click.argument("path", type=click.Path(path_type=Path))
@store_option()
@click.pass_context
def forget(ctx: click.Context, path: Path, store: str | None) -> None:
    """Remove PATH (a file or folder) from the index. Files on disk are not touched.

    A later `index` adds it again unless .semlithignore excludes it.

    \b
    Examples:
      semlith forget vendor/
      semlith forget notes/draft.md --store notes
    """
    with errors():
        removed = library(ctx).forget(os.path.abspath(path), store=_store(store))
    click.echo(f"forgot {counted(removed, 'file')}")


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@store_option()
@click.option("--debounce", type=click.FloatRange(0.05, 60), default=0.5, show_default=True,
              help=DEBOUNCE_HELP)
@click.pass_context
def watch(ctx: click.Context, paths: tuple[Path, ...], store: str | None,
          debounce: float) -> None:
    """Keep one store current in the foreground (for those who run no daemon).

    Holds the store's writer lock; indexes what changed since the last run, then every
    change as it is saved. Ctrl-C stops. When the daemon runs, it already watches every
    store it serves: this makes sure it serves this one, and returns.

    \b
    Examples:
      semlith watch                      # the store of the current folder
      semlith watch ~/src/app --debounce 2
    """
    with errors():
        try:
            watched = library(ctx).watch(_absolute(paths), store=_store(store),
                                         debounce=debounce,
                                         on_event=lambda line: click.echo(line, err=True))
        except KeyboardInterrupt:  # how a foreground watch is meant to stop: exit 0
            click.echo("stopped watching; the store is consistent", err=True)
            return
    if watched.by_daemon:
        click.echo(f"the running daemon (pid {watched.by_daemon}) watches {watched.root}; "
                   "`semlith stats` shows its last batch")


@main.command()
@click.argument("backend", metavar="URI")
@click.pass_context
def attach(ctx: click.Context, backend: str) -> None:
    """Search a repo that another machine indexes into Milvus, without its files.

    URI is milvus://HOST:PORT/COLLECTION?repo=NAME (the token in SEMLITH_MILVUS_TOKEN).
    The mirror is searched like any store and never indexed here; `semlith read` shows
    a file as its chunks hold it. See docs/scale-out.md.

    \b
    Examples:
      semlith attach 'milvus://db.internal:19530/code?repo=payments'
    """
    with errors():
        entry = library(ctx).attach(backend)
    click.echo(f"attached {entry.name!r} ({entry.model}) as a store; "
               f"search it with --store {entry.name}")
