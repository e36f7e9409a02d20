"""serve, stop, key, mcp: running the daemon and connecting editors and agents to it."""

from __future__ import annotations

import json
import sys

import click

from semlith.cli.base import env, errors, library, main, store_option

DEBOUNCE_HELP = ("Seconds the tree must be quiet before a stream of changes is indexed; "
                 "a lone save waits 0.15 s.")


@main.command()
@click.argument("named", nargs=-1, metavar="[STORE]...")
@store_option(multiple=True, help="Serve only this store: a name from `semlith stores`, a "
              "project folder or a store folder (repeatable; default: every registered "
              "store, following the registry). STORE arguments mean the same.")
@click.option("--port", type=int, help="Port on 127.0.0.1 (default 7365 or SEMLITH_PORT; "
              "0 picks a free one).")
@click.option("--debounce", type=click.FloatRange(0.05, 60), default=0.5, show_default=True,
              help=DEBOUNCE_HELP)
@click.option("--no-watch", is_flag=True, help="Do not watch the roots for changes.")
@click.pass_context
def serve(ctx: click.Context, named: tuple[str, ...], stores: tuple[str, ...],
          port: int | None, debounce: float, no_watch: bool) -> None:
    """Run the daemon: every registered store (or the ones --store names), one model,
    MCP at /mcp.

    Listens on 127.0.0.1 only. Agents connect to http://127.0.0.1:PORT/mcp with the key
    from `semlith key show`; editors launch `semlith mcp`. Every root is watched: first
    the changes made while no daemon ran are indexed, then each edit about a second
    after it is saved. A store indexed later is served within a second. Stop with
    Ctrl-C or `semlith stop`.

    \b
    Examples:
      semlith serve                            # every registered store, on port 7365
      semlith serve --store app --store docs   # only these two stores
      semlith serve app docs                   # the same, as arguments
      semlith serve --port 0 --no-watch        # a free port; the roots not watched
    """
    from semlith.server.daemon import serve as run

    state = env(ctx)
    with errors():
        run(state.get_settings(), (*named, *stores), port, watch=not no_watch,
            debounce=debounce, embedder_factory=state.embedder_factory)


@main.command()
@click.pass_context
def stop(ctx: click.Context) -> None:
    """Stop the running daemon (it finishes in-flight calls first).

    \b
    Examples:
      semlith stop
    """
    from semlith.daemon_client import hung, silent_daemon
    from semlith.errors import DaemonHung
    from semlith.remote import RemoteLibrary
    from semlith.server.daemon import GRACEFUL_SECONDS, wait_until_gone

    with errors():
        lib = library(ctx)
        if not isinstance(lib, RemoteLibrary):
            silent = silent_daemon(env(ctx).get_settings(), probe=False)  # #47
            if silent is not None:  # its process lives, and it just did not answer
                raise DaemonHung(hung(silent))
            click.echo("no semlith daemon is running")
            return
        pid = lib.found.pid
        lib.stop()
        if not wait_until_gone(pid, GRACEFUL_SECONDS + 5):
            raise ValueError(f"the daemon (pid {pid}) did not stop in time")
    click.echo(f"stopped the daemon (pid {pid})")


@main.group()
def key() -> None:
    """The agent key that HTTP clients present as `Authorization: Bearer <key>`.

    \b
    Examples:
      semlith key show
    """


@key.command("show")
@click.pass_context
def key_show(ctx: click.Context) -> None:
    """Print the agent key and two generic client snippets.

    `semlith setup CLIENT` prints (or, with --write, merges) one client's own config:
    its file, its variable syntax.

    \b
    Examples:
      semlith key show
    """
    from semlith.base.home import agent_key
    from semlith.setup.launch import locate

    settings = env(ctx).get_settings()
    with errors():
        secret = agent_key(settings.home)
    launch = locate()
    click.echo(f"agent key: {secret}\n")
    click.echo("stdio (the key stays out of the config; `semlith mcp` reads it):")
    click.echo(json.dumps({"mcpServers": {"semlith": {"command": launch.command,
                                                       "args": list(launch.args)}}}, indent=2))
    click.echo("\nHTTP (keep the key in the environment: export SEMLITH_AGENT_KEY=...):")
    click.echo(json.dumps({"mcpServers": {"semlith": {
        "type": "http", "url": f"http://127.0.0.1:{settings.port}/mcp",
        "headers": {"Authorization": "Bearer ${SEMLITH_AGENT_KEY}"}}}}, indent=2))
    click.echo("\nFor one client's own file and syntax: semlith setup CLIENT [--write] "
               "(semlith setup --list names them)", err=True)


@main.command("mcp")
@click.pass_context
def mcp_stdio(ctx: click.Context) -> None:
    """MCP over stdio for editors: forwards to the daemon, starting one if none runs.

    \b
    Examples:
      semlith mcp                        # what an editor's MCP config launches
    """
    from semlith.server.proxy import run_proxy

    with errors():
        sys.exit(run_proxy(env(ctx).get_settings()))
