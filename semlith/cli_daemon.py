"""CLI commands around the daemon: serve, status, stop, stores, key, mcp."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from semlith.cli import _app, _errors, _fail, main

DEBOUNCE_HELP = "Seconds the tree must be quiet before changes are indexed."


@main.command()
@click.argument("stores", nargs=-1)
@click.option("--port", type=int, help="Port on 127.0.0.1 (default 7365 or SEMLITH_PORT; "
              "0 picks a free one).")
@click.option("--debounce", type=click.FloatRange(0.05, 60), default=0.5, show_default=True,
              help=DEBOUNCE_HELP)
@click.option("--no-watch", is_flag=True, help="Do not watch the roots for changes.")
@click.pass_context
def serve(ctx: click.Context, stores: tuple[str, ...], port: int | None, debounce: float,
          no_watch: bool) -> None:
    """Run the daemon: every registered store (or STORES), one model, MCP at /mcp.

    Listens on 127.0.0.1 only. Agents connect to http://127.0.0.1:PORT/mcp with the key
    from `semlith key show`; editors launch `semlith mcp`. Every root is watched: first
    the changes made while no daemon ran are indexed, then each edit about a second
    after it is saved. Stop with Ctrl-C or `semlith stop`.
    """
    from semlith.server.daemon import serve as run

    app = _app(ctx)
    with _errors():
        run(app, stores, port, watch=not no_watch, debounce=debounce)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--store", "store_dir", type=click.Path(path_type=Path),
              help="Store folder (default: the .semlith found above the first path).")
@click.option("--debounce", type=click.FloatRange(0.05, 60), default=0.5, show_default=True,
              help=DEBOUNCE_HELP)
@click.pass_context
def watch(ctx: click.Context, paths: tuple[Path, ...], store_dir: Path | None,
          debounce: float) -> None:
    """Keep one store current in the foreground (for those who run no daemon).

    Holds the store's writer lock; indexes what changed since the last run, then every
    change as it is saved. Ctrl-C stops.
    """
    import threading

    from semlith.api import open_for_index, run_index
    from semlith.watch import StoreWatcher

    app = _app(ctx)
    with _errors():
        store = open_for_index(app, list(paths), store_dir, None)
        scope = [p.resolve() for p in paths]

        def batch(rels: list[str] | None) -> Any:
            targets = [store.root / r for r in rels] if rels is not None else scope
            return run_index(app, store, targets)

        watcher = StoreWatcher(store.root, store.folder, batch, debounce=debounce)
        watcher.on_batch = lambda report: click.echo(report.summary())
        stopped = threading.Event()
        try:
            watcher.start(catch_up=True)
            click.echo(f"watching {store.root} (Ctrl-C stops)", err=True)
            while not stopped.wait(1.0):
                if watcher.state.last_error:
                    click.echo(f"semlith: {watcher.state.last_error}", err=True)
                    watcher.state.last_error = None
        except KeyboardInterrupt:
            pass
        finally:
            watcher.stop()
            store.close()


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
def status(ctx: click.Context, as_json: bool) -> None:
    """Whether the daemon runs, where, and what it serves. Exit 1 when it does not run."""
    from semlith.server.client import call, running

    app = _app(ctx)
    with _errors():
        found = running(app.settings)
        if found is None:
            _fail("no semlith daemon is running; start one with `semlith serve`")
        info = call(app.settings, found, "GET", "/api/status")
    if as_json:
        click.echo(json.dumps({"pid": found.pid, "port": found.port, **info}, indent=2))
        return
    click.echo(f"semlith {info['version']} daemon, pid {found.pid}, "
               f"http://127.0.0.1:{found.port}/mcp, up {info['uptime_s']:.0f} s, model "
               f"{'ready' if info['model_ready'] else info['model_error'] or 'loading'}")
    for name, store in info["stores"].items():
        busy = " (indexing)" if store["indexing"] else ""
        click.echo(f"  {name}: {store['root']}{busy}")
    for folder, why in info["not_served"].items():
        click.echo(f"  not served: {folder}: {why}")


@main.command()
@click.pass_context
def stop(ctx: click.Context) -> None:
    """Stop the running daemon (it finishes in-flight calls first)."""
    from semlith.server.client import call, running
    from semlith.server.daemon import GRACEFUL_SECONDS, wait_until_gone

    app = _app(ctx)
    with _errors():
        found = running(app.settings)
        if found is None:
            click.echo("no semlith daemon is running")
            return
        call(app.settings, found, "POST", "/api/stop", {})
        if not wait_until_gone(found.pid, GRACEFUL_SECONDS + 5):
            _fail(f"the daemon (pid {found.pid}) did not stop in time")
    click.echo(f"stopped the daemon (pid {found.pid})")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
def stores(ctx: click.Context, as_json: bool) -> None:
    """List the registered stores (`semlith index` registers the stores it writes)."""
    from pathlib import Path

    from semlith.home import registered_stores

    app = _app(ctx)
    with _errors():
        entries = registered_stores(app.settings.home)
    rows = [{"name": e.name, "root": e.root, "folder": e.folder, "model": e.model,
             "exists": (Path(e.folder) / "store.db").is_file()} for e in entries]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        click.echo("no stores registered; `semlith index DIR` creates one")
    for row in rows:
        missing = "" if row["exists"] else "  (missing)"
        click.echo(f"{row['name']:20} {row['root']}{missing}")


@main.group()
def key() -> None:
    """The agent key that HTTP clients present as `Authorization: Bearer <key>`."""


@key.command("show")
@click.pass_context
def key_show(ctx: click.Context) -> None:
    """Print the agent key and client configuration snippets."""
    from semlith.home import agent_key

    app = _app(ctx)
    with _errors():
        secret = agent_key(app.settings.home)
    port = app.settings.port
    click.echo(f"agent key: {secret}\n")
    click.echo("stdio (the key stays out of the config; `semlith mcp` reads it):")
    click.echo(json.dumps({"mcpServers": {"semlith": {"command": "semlith",
                                                       "args": ["mcp"]}}}, indent=2))
    click.echo("\nHTTP (keep the key in the environment: export SEMLITH_AGENT_KEY=...):")
    click.echo(json.dumps({"mcpServers": {"semlith": {
        "type": "http", "url": f"http://127.0.0.1:{port}/mcp",
        "headers": {"Authorization": "Bearer ${SEMLITH_AGENT_KEY}"}}}}, indent=2))
    click.echo("\nMore clients: docs/clients.md", err=True)


@main.command("mcp")
@click.pass_context
def mcp_stdio(ctx: click.Context) -> None:
    """MCP over stdio for editors: forwards to the daemon, starting one if none runs."""
    from semlith.server.proxy import run_proxy

    app = _app(ctx)
    with _errors():
        sys.exit(run_proxy(app))
