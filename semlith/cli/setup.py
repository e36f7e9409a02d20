"""setup: print, or merge into its config file, one MCP client's entry for semlith, and
the instruction block that tells its agent when to use semlith's tools."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from semlith.cli.base import emit_json, env, errors, json_option, main

if TYPE_CHECKING:
    from semlith.setup.clients import Client
    from semlith.setup.configfile import Written

USAGE_ERROR = 2


@main.command()
@click.argument("client", required=False)
@click.option("--write", is_flag=True,
              help="Merge the entry into the config file (other entries are kept; the "
              "original is backed up once as FILE.semlith-backup).")
@click.option("--project", type=click.Path(exists=True, file_okay=False, path_type=Path),
              metavar="DIR", help="Use the project's config in DIR instead of the user's.")
@click.option("--http", is_flag=True,
              help="The HTTP form: the client connects to a running `semlith serve` and "
              "reads the key from SEMLITH_AGENT_KEY (never written into the file).")
@click.option("--list", "list_", is_flag=True,
              help="List the clients and where each keeps its config.")
@click.option("--docs", is_flag=True,
              help="Print every client's snippets and caveats (docs/clients.md).")
@json_option
@click.pass_context
def setup(ctx: click.Context, client: str | None, write: bool, project: Path | None,
          http: bool, list_: bool, docs: bool, as_json: bool) -> None:
    """Connect an MCP client: print its semlith entry and the file it belongs in.

    \b
    CLIENT: claude-code, codex, cursor, vscode, zed, gemini, claude-desktop,
            windsurf, cline, roo-code, kilo-code, continue, opencode, goose, jetbrains

    The default (stdio) form has the client launch this installation's `semlith mcp`,
    named by its absolute path (an editor started outside your shell may not find a bare
    `semlith`), and holds no secret. Nothing is written without --write; a second
    --write changes nothing, and a config file that does not parse is refused, never
    overwritten. JetBrains AI Assistant keeps its servers in its settings: paste there.

    Also printed (on stderr): a short instruction block for the client's instruction
    file (CLAUDE.md, AGENTS.md, GEMINI.md, a rules file...) saying when to prefer
    semlith_search and semlith_read to grep and whole-file reads. --write puts it in
    that file between marker lines, leaving the rest of the file as it was.

    \b
    Examples:
      semlith setup cursor                 # print the entry and the instructions
      semlith setup claude-code --write    # merge both into the user's files
      semlith setup codex --project . --write
    """
    if list_ or docs:
        if client or write or http or project:
            _usage("--list and --docs take no CLIENT and no other option", as_json)
        return _docs() if docs else _list(as_json)
    if client is None:
        _usage("name a CLIENT (`semlith setup --list` shows them)", as_json)
    from semlith.setup import clients

    with errors(as_json):
        port = env(ctx).get_settings().port
        try:
            chosen = clients.find(client)
            form = clients.Form.HTTP if http else clients.Form.STDIO
            launch = clients.locate()
            config = clients.config_for(chosen, form, launch, port)
            path = clients.config_path(chosen, clients.Places.here(), project)
            if path is None and write:
                raise ValueError(f"{chosen.title} keeps its MCP servers in its settings, "
                                 "not a file: run without --write and paste the entry "
                                 f"into {chosen.settings}")
        except ValueError as exc:  # a client, or a form, scope or file it lacks: usage
            _usage(str(exc), as_json)
        written = _write(path, config, chosen) if write and path is not None else None
        guide, guided = _instructions(chosen, project, write)
    notes = [n for n in ("" if http else launch.note, chosen.caveat if project is None else "",
                         _http_note(chosen) if http else "") if n]
    if as_json:
        from semlith.setup.instructions import BLOCK

        emit_json({"client": chosen.name, "path": str(path) if path else None,
                   "settings": chosen.settings or None, "config": config,
                   "written": written.outcome.value if written else None, "notes": notes,
                   "instructions": {"path": str(guide) if guide else None, "text": BLOCK,
                                    "written": guided}})
        return
    if written is None:
        _print(chosen, path, config, project)
        _print_instructions(chosen, guide)
    else:
        click.echo(_said(written, chosen))
        if guide is not None:
            click.echo(f"added semlith's instructions to {guide}" if guided else
                       f"{guide} already has semlith's instructions; nothing changed")
        else:
            notes.append(f"{chosen.title} keeps agent instructions in its settings, not a "
                         f"file: `semlith setup {chosen.name}` prints the block to paste")
    for note in notes:
        click.echo(f"note: {note}", err=True)


def _instructions(client: Client, project: Path | None, write: bool
                  ) -> tuple[Path | None, bool | None]:
    """The client's instruction file, and (with `write`) whether the block was added."""
    from semlith.setup.clients import Places
    from semlith.setup.instructions import FILES, instruction_path, write_block

    guide = instruction_path(client.name, Places.here(), project)
    if not write or guide is None:
        return guide, None
    try:
        return guide, write_block(guide, FILES[client.name].head)
    except (OSError, UnicodeError) as exc:
        raise ValueError(f"cannot write {str(guide)!r}: {exc}") from None


def _print_instructions(client: Client, guide: Path | None) -> None:
    from semlith.setup.instructions import BLOCK

    where = (f"for {guide}; --write adds it there" if guide is not None else
             f"to paste into {client.title}'s settings (it keeps them there, not in a file)")
    click.echo(f"\n# Instructions for the agent, {where}:\n{BLOCK}", err=True, nl=False)


def _write(path: Path, config: dict[str, Any], client: Client) -> Written:
    from semlith.setup.configfile import merge_into

    return merge_into(path, config, client.syntax, dict(client.new_file))


def _print(client: Client, path: Path | None, config: dict[str, Any],
           project: Path | None) -> None:
    from semlith.setup.configfile import render

    click.echo(render(config, client.syntax), nl=False)
    if path is None:
        click.echo(f"# paste this into {client.settings} (Global, or the current project)",
                   err=True)
        return
    scope = "project" if project else "user"
    click.echo(f"# {client.title} reads this from its {scope} config {path}; run again "
               "with --write to merge it in", err=True)


def _said(written: Written, client: Client) -> str:
    from semlith.setup.configfile import Outcome

    if written.outcome is Outcome.UNCHANGED:
        return f"{written.path} already has this semlith entry; nothing changed"
    verb = {Outcome.CREATED: "created", Outcome.ADDED: "added semlith to",
            Outcome.UPDATED: "updated semlith in"}[written.outcome]
    kept = f" (backup: {written.backup})" if written.backup else ""
    return f"{verb} {written.path}{kept}; restart {client.title} to load it"


def _http_note(client: Client) -> str:
    where = ("VS Code asks for the key once" if client.name == "vscode" else
             "export SEMLITH_AGENT_KEY (from `semlith key show`) where the client starts")
    return f"the HTTP form needs a running `semlith serve`; {where}"


def _list(as_json: bool) -> None:
    from semlith.setup.clients import CLIENTS, locations

    if as_json:
        emit_json([{"client": c.name, "title": c.title, "format": c.syntax.value,
                    "forms": ["stdio", "http"] if c.http else ["stdio"],
                    "user": locations(c), "project": c.project_file,
                    "settings": c.settings or None} for c in CLIENTS])
        return
    for c in CLIENTS:
        click.echo(f"{c.name:15} {c.title} ({'stdio, http' if c.http else 'stdio only'}, "
                   f"{c.syntax.value.upper()})")
        for system, path in locations(c).items():
            click.echo(f"  {system:9} {path}")
        if c.project_file:
            click.echo(f"  {'project':9} DIR/{c.project_file}")
        if c.settings:
            click.echo(f"  {'settings':9} {c.settings}")
    click.echo("\nEach client's snippets, variable syntax and caveats: semlith setup --docs")


def _docs() -> None:
    from semlith.setup.reference import reference

    click.echo(reference(), nl=False)


def _usage(message: str, as_json: bool) -> NoReturn:
    if as_json:
        click.echo(json.dumps({"error": message}))
        sys.exit(USAGE_ERROR)
    raise click.UsageError(message)
