"""The `semlith` command: parse, call `semlith.api`, format. No logic lives here."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import click

from semlith import __version__
from semlith.errors import SemlithError

STORE_HELP = "Store folder (default: the .semlith found above the current folder)."


def _fail(message: str) -> NoReturn:
    click.echo(f"semlith: error: {message}", err=True)
    sys.exit(1)


@contextmanager
def _errors() -> Iterator[None]:
    """Domain errors and bad values become one line on stderr and exit status 1."""
    try:
        yield
    except (SemlithError, ValueError, PermissionError) as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        _fail("interrupted; the store is consistent and the next run continues")


def _app(ctx: click.Context) -> Any:
    from semlith.api import App
    from semlith.settings import Settings

    if ctx.obj is None:
        with _errors():
            ctx.obj = App(Settings.load())
    return ctx.obj


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 88})
@click.version_option(__version__, prog_name="semlith")
def main() -> None:
    """Local semantic search over code and documents, for people and coding agents."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--store", "store_dir", type=click.Path(path_type=Path), help=STORE_HELP)
@click.option("--model", help="Embedding model for a new store (fixed for its lifetime).")
@click.option("-v", "--verbose", is_flag=True, help="List every skipped file with its reason.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the summary line.")
@click.pass_context
def index(ctx: click.Context, paths: tuple[Path, ...], store_dir: Path | None,
          model: str | None, verbose: bool, quiet: bool) -> None:
    """Index PATHS (default: the current folder) into a store, incrementally.

    The store is `.semlith` in the indexed folder (or the one found above it). Unchanged
    files cost nothing; a killed run resumes where it stopped.
    """
    from semlith.api import open_for_index, run_index
    from semlith.errors import StoreLocked
    from semlith.progress import progress_printer, skip_printer

    app = _app(ctx)
    with _errors():
        try:
            store = open_for_index(app, list(paths), store_dir, model)
        except StoreLocked as locked:
            summary, truncated = _index_by_daemon(app, list(paths), store_dir, locked)
            click.echo(summary)
            _note_truncated(truncated)
            return
        try:
            with progress_printer(quiet) as on_progress:
                report = run_index(app, store, list(paths), on_progress=on_progress,
                                   on_skip=skip_printer() if verbose else None)
        finally:
            store.close()
    click.echo(report.summary())
    _note_truncated(report.truncated)


def _index_by_daemon(app: Any, paths: list[Path], store_dir: Path | None,
                     locked: Exception) -> tuple[str, list[str]]:
    """The store is locked: if the running daemon holds it, let the daemon index."""
    from semlith.errors import StoreLocked
    from semlith.server.client import DaemonError, call, running
    from semlith.store.locate import find_store

    folder = store_dir or find_store((paths[0] if paths else Path.cwd()).resolve())
    found = running(app.settings)
    if found is None or folder is None:
        raise locked
    try:
        answer = call(app.settings, found, "POST", "/api/index",
                      {"folder": str(folder.resolve()),
                       "paths": [str(p.resolve()) for p in paths]})
    except DaemonError as exc:
        raise StoreLocked(f"store {str(folder)!r} is locked, and the daemon could not index "
                          f"it: {exc}") from None
    return f"{answer['summary']} (by the daemon, pid {found.pid})", answer["truncated"]


def _note_truncated(truncated: list[str]) -> None:
    for rel in truncated:
        click.echo(f"note: {rel} has more chunks than the per-file cap; indexed up to it",
                   err=True)


def _filters(path: Sequence[str], ext: Sequence[str], lang: Sequence[str]) -> Any:
    from semlith.search import Filters

    return Filters(tuple(path), tuple(ext), tuple(lang))


def _filter_options(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option("--lang", multiple=True, metavar="LANG",
                        help="Only this language (repeatable; !LANG excludes).")(func)
    func = click.option("--ext", multiple=True, metavar="EXT",
                        help="Only this extension (repeatable; !EXT excludes).")(func)
    return click.option("--path", multiple=True, metavar="GLOB",
                        help="Only paths matching GLOB; relative patterns match anywhere "
                        "(repeatable; !GLOB excludes).")(func)


@main.command()
@click.argument("query")
@click.option("-k", "k", default=10, show_default=True, help="Number of results.")
@click.option("--json", "as_json", is_flag=True, help="Print hits as a JSON list.")
@click.option("--store", "stores", multiple=True, type=click.Path(path_type=Path),
              help="Store to search (repeatable; default: SEMLITH_STORE, then the .semlith "
              "found above the current folder).")
@_filter_options
@click.pass_context
def search(ctx: click.Context, query: str, k: int, as_json: bool, stores: tuple[Path, ...],
           path: tuple[str, ...], ext: tuple[str, ...], lang: tuple[str, ...]) -> None:
    """Search the index for QUERY (plain English, an identifier, or both)."""
    from semlith import api
    from semlith.progress import format_hits

    app = _app(ctx)
    with _errors():
        dirs = api.store_dirs(app, stores)
        hits = _search_by_daemon(app, dirs, query, k, path, ext, lang)
        if hits is None:
            with api.stores_open(app, dirs) as opened:
                hits = api.search(app, opened, query, k, _filters(path, ext, lang))
    if as_json:
        click.echo(json.dumps([h.as_json() for h in hits], indent=2))
    elif not hits:
        click.echo("no results")
    else:
        click.echo(format_hits(hits, multi_store=len(dirs) > 1))


def _search_by_daemon(app: Any, dirs: list[Path], query: str, k: int, path: Sequence[str],
                      ext: Sequence[str], lang: Sequence[str]) -> list[Any] | None:
    """Hits from the running daemon (its model is loaded), or None to search here."""
    from semlith.home import read_discovery
    from semlith.search import Hit
    from semlith.server.client import DaemonError, call

    found = read_discovery(app.settings.home)
    if found is None:
        return None
    try:
        rows = call(app.settings, found, "POST", "/api/search",
                    {"query": query, "k": k, "path": list(path), "ext": list(ext),
                     "lang": list(lang), "folders": [str(d) for d in dirs]}, timeout=150)
    except DaemonError as exc:
        if "does not serve" in str(exc) or "did not answer" in str(exc):
            return None  # not the daemon's stores, or it is gone: search here
        raise
    return [Hit(**row) for row in rows]


@main.command()
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print definitions as a JSON list.")
@click.option("--store", "stores", multiple=True, type=click.Path(path_type=Path),
              help="Store to look in (repeatable; default as for search).")
@click.pass_context
def symbol(ctx: click.Context, name: str, as_json: bool, stores: tuple[Path, ...]) -> None:
    """Where NAME is defined: every definition, best first (`Type.method`, `Type::method`)."""
    from semlith import api
    from semlith.symbols import find_symbols

    app = _app(ctx)
    with _errors():
        dirs = api.store_dirs(app, stores)
        with api.stores_open(app, dirs) as opened:
            hits = find_symbols(opened, name)
    if as_json:
        click.echo(json.dumps([h.as_json() for h in hits], indent=2))
    elif not hits:
        click.echo(f"no definition of {name!r}")
    for hit in [] if as_json else hits:
        where = f"[{hit.store}] " if len(dirs) > 1 else ""
        click.echo(f"{where}{hit.locator}  {hit.kind} {hit.qualname}\n    {hit.signature}")


@main.command()
@click.option("--store", "store_dir", type=click.Path(path_type=Path), help=STORE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
def stats(ctx: click.Context, store_dir: Path | None, as_json: bool) -> None:
    """Show what a store holds: files, chunks, shards, memory budget."""
    from semlith import api
    from semlith.progress import format_stats

    app = _app(ctx)
    with _errors():
        with api.stores_open(app, api.store_dirs(app, [store_dir] if store_dir else [])) \
                as ((_, store),):
            info = store.stats()
        info["watch"] = _daemon_watch(app, Path(info["folder"]))
    click.echo(json.dumps(info, indent=2) if as_json else format_stats(info))


def _daemon_watch(app: Any, folder: Path) -> dict[str, Any] | None:
    """How the running daemon watches this store, if it serves it."""
    from semlith.home import read_discovery
    from semlith.server.client import DaemonError, call

    found = read_discovery(app.settings.home)
    if found is None:
        return None
    try:
        status = call(app.settings, found, "GET", "/api/status", timeout=5)
    except DaemonError:
        return None
    for store in status.get("stores", {}).values():
        if Path(store["folder"]).resolve() == folder.resolve():
            watch: dict[str, Any] | None = store.get("watch")
            return watch
    return None


@main.command()
@click.option("--store", "store_dir", type=click.Path(path_type=Path), help=STORE_HELP)
@click.option("--skipped", is_flag=True, help="List skipped paths with their reasons instead.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
def files(ctx: click.Context, store_dir: Path | None, skipped: bool, as_json: bool) -> None:
    """List indexed files (or, with --skipped, what was left out and why)."""
    from semlith import api

    app = _app(ctx)
    dirs = [store_dir] if store_dir else []
    with _errors(), api.stores_open(app, api.store_dirs(app, dirs)) as ((_, store),):
        if skipped:
            rows: list[dict[str, Any]] = [
                {"path": r.path, "reason": r.reason, "detail": r.detail}
                for r in store.catalog.skipped().values()]
        else:
            rows = [{"path": f.path, "size": f.size, "lang": f.lang,
                     "state": "indexed" if f.hash else "pending"}
                    for f in store.catalog.files()]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        extra = row.get("reason") or row["state"]
        detail = f" ({row['detail']})" if row.get("detail") else ""
        click.echo(f"{row['path']}\t{extra}{detail}")


@main.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--store", "store_dir", type=click.Path(path_type=Path), help=STORE_HELP)
@click.pass_context
def forget(ctx: click.Context, path: Path, store_dir: Path | None) -> None:
    """Remove PATH (a file or folder) from the index. Files on disk are not touched.

    A later `index` adds it again unless .semlithignore excludes it.
    """
    from semlith import api
    from semlith.store import Store

    app = _app(ctx)
    with _errors():
        folder = store_dir.resolve() if store_dir else api.store_dirs(app, [])[0]
        store = Store.open(folder, settings=app.settings, writable=True)
        try:
            removed = api.forget(store, path)
        finally:
            store.close()
    click.echo(f"forgot {removed} file{'s' if removed != 1 else ''}")


@main.command()
@click.option("--download", metavar="NAME", help="Fetch fastembed model NAME now (needs network).")
@click.option("--build", "build", metavar="NAME",
              help="Build recipe model NAME now from its installed package (offline).")
@click.pass_context
def models(ctx: click.Context, download: str | None, build: str | None) -> None:
    """List embedding models: recipes built from installed packages, then fastembed's."""
    from semlith.embed import models as embed_models
    from semlith.embed.text import FastEmbedder

    app = _app(ctx)
    home, folder = app.settings.home, app.settings.models_dir
    with _errors():
        if build:
            built = embed_models.build_model(build, home, models_dir=folder)
            click.echo(f"{build}: built in {built}")
            return
        if download:
            model = FastEmbedder(download, cache_dir=folder, download=True)
            click.echo(f"{download}: ready ({model.dim} dimensions)")
            return
        for e in embed_models.model_catalog(home, models_dir=folder):
            size = f"{e.size_mb:.0f} MB" if e.size_mb else ""
            name = e.name + (" (default)" if e.default else "")
            click.echo(f"{name:44} {e.dim:5}  {e.state:10} {size:>7}  {e.speed:36}  "
                       f"{e.source}")


@main.command()
def languages() -> None:
    """List languages, their extensions, and how their files are chunked."""
    from semlith.ingest.definitions import has_definitions
    from semlith.languages import LANGUAGES

    for lang in LANGUAGES:
        names = " ".join(lang.extensions + lang.filenames)
        how = ("definitions" if has_definitions(lang)
               else "headings" if lang.name == "markdown" else "lines")
        click.echo(f"{lang.name:12} {how:12} {names}")


from semlith import cli_daemon  # noqa: E402,F401  (registers serve, status, stop, ...)
