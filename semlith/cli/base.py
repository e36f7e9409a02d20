"""What every command shares: the group, the library chosen once, errors, scopes.

A command parses its options, calls one `Library` method and formats the result. The
library is chosen once per process, at the first command that needs one: the running
daemon's (its model is loaded and it is the stores' writer) when one answers, else one
in this process. Errors become one line on stderr and exit status 1 (usage errors 2);
a `--json` command prints `{"error": ...}` on stdout instead; Ctrl-C exits 130.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from semlith.base.version import __version__
from semlith.errors import Hint, SemlithError, worded
from semlith.types import Scope

if TYPE_CHECKING:
    from semlith.base.settings import Settings
    from semlith.library import EmbedderFactory, Library

INTERRUPTED = 130
# A library error's next step, as a person at a shell takes it (an MCP tool words the
# same hints with tools and arguments: semlith/server/tools.py).
HINTS = {Hint.LIST_FILES: "`semlith files` lists them",
         Hint.FIND: "`semlith files` lists files, `semlith search` finds code",
         Hint.CHOOSE_STORE: "choose with --store NAME (`semlith stores` lists them) or "
                            "--store '*' for every store",
         Hint.INDEX: "`semlith index DIR` creates one"}


@dataclass
class Env:
    """The command's environment: settings, and the library once chosen. Tests pass one
    (`obj=Env(embedder_factory=...)`) to run the CLI with a deterministic model."""

    settings: Settings | None = None
    embedder_factory: EmbedderFactory | None = None
    library: Library | None = None

    def get_settings(self) -> Settings:
        if self.settings is None:
            from semlith.base.settings import Settings

            self.settings = Settings.load()
        return self.settings


def env(ctx: click.Context) -> Env:
    root = ctx.find_root()
    if root.obj is None:
        root.obj = Env()
    assert isinstance(root.obj, Env)
    return root.obj


def library(ctx: click.Context) -> Library:
    """The library for this process, chosen at its first use."""
    state = env(ctx)
    if state.library is None:
        from semlith.connect import open_library

        state.library = open_library(state.get_settings(),
                                     embedder_factory=state.embedder_factory)
        ctx.find_root().call_on_close(state.library.close)
    return state.library


def fail(message: str, as_json: bool = False) -> NoReturn:
    if as_json:
        click.echo(json.dumps({"error": message}))
    else:
        click.echo(f"semlith: error: {message}", err=True)
    sys.exit(1)


@contextmanager
def errors(as_json: bool = False) -> Iterator[None]:
    """Domain errors and bad values become one line (or a JSON error) and exit 1."""
    try:
        yield
    except (SemlithError, ValueError, PermissionError) as exc:
        fail(worded(exc, HINTS), as_json)
    except KeyboardInterrupt:
        click.echo("semlith: interrupted; the store is consistent and the next run "
                   "continues", err=True)
        sys.exit(INTERRUPTED)


def emit_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2))


def scope(ctx: click.Context, stores: Sequence[str]) -> Scope:
    """--store values, else SEMLITH_STORE, else the stores around the current folder.

    A value that exists as a path is made absolute (the daemon has another working
    folder); anything else is a store name.
    """
    given = [str(s) for s in stores] or [str(p) for p in env(ctx).get_settings().stores]
    if given:
        return Scope(tuple(str(Path(s).expanduser().resolve()) if Path(s).expanduser()
                           .exists() else s for s in given))
    return Scope(near=(str(Path.cwd()),))


def store_option(multiple: bool = False, help: str | None = None
                 ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return click.option(
        "--store", "stores" if multiple else "store", multiple=multiple, metavar="STORE",
        help=help or ("Store: a name from `semlith stores`, a project folder or a store "
                      "folder" + (" (repeatable; default: SEMLITH_STORE, then the stores "
                                  "around the current folder)." if multiple else
                                  " (default: the one around the paths).")))


def json_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print as JSON.")(func)


# Which module of semlith/cli defines each command. A command's module is imported when
# it is asked for: `semlith search --exact` imported every command's module at start-up,
# the daemon's among them (issue #45: start-up is part of grep's 300 ms budget).
# tests/cli/test_cli_output.py checks this table against the commands the modules define;
# a command missing from it still runs, after every module is imported.
COMMAND_MODULES = {
    **dict.fromkeys(("search", "symbol", "read", "outline"), "search"),
    **dict.fromkeys(("neighbors", "impact", "path", "brief"), "graph"),
    **dict.fromkeys(("index", "forget", "watch", "attach"), "index"),
    **dict.fromkeys(("files", "stats", "stores", "status", "models", "languages",
                     "formats"), "info"),
    **dict.fromkeys(("serve", "stop", "key", "mcp"), "daemon"),
    "portal": "portal", "setup": "setup", "doctor": "doctor",
}


class _Commands(click.Group):
    """The command group, importing a command's module when the command is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        for module in sorted(set(COMMAND_MODULES.values())):
            importlib.import_module(f"semlith.cli.{module}")
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            importlib.import_module(f"semlith.cli.{module}")
        elif cmd_name not in self.commands:  # a command the table does not name yet:
            self.list_commands(ctx)  # every module, so it runs (only its start-up is slow)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_Commands,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 88})
@click.version_option(__version__, prog_name="semlith")
def main() -> None:
    """Local semantic search over code and documents, for people and coding agents.

    \b
    Examples:
      semlith index ~/src/app                 # index a folder (incremental)
      semlith search "how does retry backoff work"
      semlith search --exact RetryPolicy -C 2
      semlith serve                            # keep every store current; MCP for agents
      semlith setup claude-code --write        # connect an MCP client
    """
