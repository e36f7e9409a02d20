"""The MCP clients `semlith setup` configures: where each keeps its config, semlith's entry.

This table is the one source of truth: `semlith setup` prints and writes from it, and the
per-client part of docs/clients.md is generated from it (`setup/reference.py`, run by
`scripts/gen_docs.py` and checked in CI; `semlith setup --docs` prints the same text).
Each row cites where its client documents the file and the format, beside it.

The stdio form runs the absolute path of this installation's `semlith mcp` (launch.py)
and holds no secret: the proxy reads the key itself. The HTTP form refers to the key in
the client's own variable syntax, never by value; a client not documented to expand a
variable there gets the stdio form only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path, PurePath
from typing import Any

from semlith.setup.configfile import Config, Syntax
from semlith.setup.launch import EXAMPLE, Launch, locate
from semlith.setup.places import SYSTEMS, Places

__all__ = ["CLIENTS", "EXAMPLE", "SERVER", "SYSTEMS", "Client", "Form", "Launch", "Places",
           "config_for", "config_path", "entry_in", "find", "locate", "locations"]

SERVER = "semlith"
KEY_VARIABLE = "SEMLITH_AGENT_KEY"
NO_VARIABLES = ("{title} is not documented to expand a variable in `headers`, so the key "
                "would sit in the file")


class Form(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


@dataclass(frozen=True, slots=True)
class Client:
    name: str  # the CLIENT argument
    title: str
    syntax: Syntax
    user_file: Callable[[Places], PurePath] | None  # None: kept in its settings (`settings`)
    project_file: str | None  # relative to --project DIR; None: no per-project config
    stdio: Callable[[Launch], Config]
    http: Callable[[str], Config] | None  # url -> config; None: the key would be in the file
    key: str  # how the HTTP form refers to the key; without one, why not
    notes: tuple[str, ...]  # Markdown, for the docs
    sources: tuple[str, ...]  # where the format is documented
    caveat: str = ""  # what `setup` says beside the user config
    settings: str = ""  # where a client without a file keeps its servers
    new_file: Mapping[str, Any] = field(default_factory=dict)  # what a new file starts with


def _servers(key: str, entry: dict[str, Any]) -> Config:
    return {key: {SERVER: entry}}


def _run(launch: Launch) -> dict[str, Any]:
    return {"command": launch.command, "args": list(launch.args)}


def _bearer(reference: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {reference}"}


def _local(launch: Launch) -> Config:
    """opencode's and Kilo's form: `mcp.NAME`, the command line as one list."""
    return _servers("mcp", {"type": "local", "command": list(launch.argv), "enabled": True})


def _remote(url: str) -> Config:
    return _servers("mcp", {"type": "remote", "url": url, "enabled": True,
                            "headers": _bearer("{env:SEMLITH_AGENT_KEY}")})


def _vscode_extension(folder: str, file: str) -> Callable[[Places], PurePath]:
    """A VS Code extension's settings file in its global storage (the default profile)."""
    return lambda p: p.app_data / "Code" / "User" / "globalStorage" / folder / "settings" / file


VSCODE_INPUT = {"type": "promptString", "id": "semlith-key", "password": True,
                "description": "semlith agent key (semlith key show)"}
CONTINUE_BLOCK = {"name": "semlith", "version": "0.0.1", "schema": "v1"}  # a config's head
JETBRAINS_SETTINGS = ("Settings | Tools | AI Assistant | Model Context Protocol (MCP), "
                      "Add, As JSON")

CLIENTS: tuple[Client, ...] = (
    Client(  # https://code.claude.com/docs/en/mcp
        name="claude-code", title="Claude Code", syntax=Syntax.JSON,
        user_file=lambda p: p.home / ".claude.json", project_file=".mcp.json",
        stdio=lambda launch: _servers("mcpServers", _run(launch)),
        http=lambda url: _servers("mcpServers", {
            "type": "http", "url": url, "headers": _bearer("${SEMLITH_AGENT_KEY}")}),
        key="`${SEMLITH_AGENT_KEY}` in `headers`",
        notes=("`~/.claude.json` holds the user-level servers and is also state Claude Code "
               "rewrites while it runs: quit it before `--write`, or run `claude mcp add "
               "--scope user semlith -- $(which semlith) mcp` instead. `--project DIR` "
               "writes the shared `.mcp.json`.",
               "Older releases sent `${VAR}` in `headers` verbatim "
               "(anthropics/claude-code#6204, #51581); the stdio form does not depend on it."),
        sources=("https://code.claude.com/docs/en/mcp",),
        caveat="Claude Code rewrites ~/.claude.json while it runs: quit it first, or use "
        "`claude mcp add --scope user semlith -- $(which semlith) mcp`"),
    Client(  # https://developers.openai.com/codex/mcp
        name="codex", title="Codex", syntax=Syntax.TOML,
        user_file=lambda p: p.codex_home / "config.toml", project_file=".codex/config.toml",
        stdio=lambda launch: _servers("mcp_servers", _run(launch)),
        http=lambda url: _servers("mcp_servers", {
            "url": url, "bearer_token_env_var": KEY_VARIABLE}),
        key="`bearer_token_env_var`: Codex reads the token from the variable it names",
        notes=("The Codex CLI and its IDE extension share the file; `$CODEX_HOME` moves it. "
               "Codex reads a project's `.codex/config.toml` only once the project is "
               "trusted.",),
        sources=("https://developers.openai.com/codex/mcp",
                 "https://developers.openai.com/codex/config-basic")),
    Client(  # https://cursor.com/docs/mcp
        name="cursor", title="Cursor", syntax=Syntax.JSON,
        user_file=lambda p: p.home / ".cursor" / "mcp.json", project_file=".cursor/mcp.json",
        stdio=lambda launch: _servers("mcpServers", _run(launch)),
        http=lambda url: _servers("mcpServers", {
            "url": url, "headers": _bearer("${env:SEMLITH_AGENT_KEY}")}),
        key="`${env:SEMLITH_AGENT_KEY}` in `headers`",
        notes=(),
        sources=("https://cursor.com/docs/mcp",)),
    Client(  # https://code.visualstudio.com/docs/copilot/reference/mcp-configuration
        name="vscode", title="VS Code", syntax=Syntax.JSON,
        user_file=lambda p: p.app_data / "Code" / "User" / "mcp.json",
        project_file=".vscode/mcp.json",
        stdio=lambda launch: _servers("servers", {"type": "stdio", **_run(launch)}),
        http=lambda url: {**_servers("servers", {
            "type": "http", "url": url, "headers": _bearer("${input:semlith-key}")}),
            "inputs": [VSCODE_INPUT]},
        key="`${input:semlith-key}`: VS Code asks once and keeps the key in its secret "
        "storage",
        notes=("For GitHub Copilot's agent mode. The user file is the default profile's; "
               "another profile keeps its own `mcp.json` (MCP: Open User Configuration).",
               "`${env:NAME}` works in `env` but was reported sent verbatim in `headers` "
               "(microsoft/vscode#336232, open), so the HTTP form prompts for the key."),
        sources=("https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",)),
    Client(  # https://zed.dev/docs/ai/mcp
        name="zed", title="Zed", syntax=Syntax.JSON,
        user_file=lambda p: (p.app_data / "Zed" if p.system == "win32"
                             else p.xdg_config / "zed") / "settings.json",
        project_file=".zed/settings.json",
        stdio=lambda launch: _servers("context_servers", _run(launch)),
        http=None,
        key="Zed sends `headers` verbatim (zed-industries/zed#60459, open), so the key "
        "itself would be in the file",
        notes=("The settings file is JSON with comments; `--write` keeps them.",),
        sources=("https://zed.dev/docs/ai/mcp", "https://zed.dev/docs/configuring-zed")),
    Client(  # https://geminicli.com/docs/tools/mcp-server
        name="gemini", title="Gemini CLI", syntax=Syntax.JSON,
        user_file=lambda p: p.home / ".gemini" / "settings.json",
        project_file=".gemini/settings.json",
        stdio=lambda launch: _servers("mcpServers", _run(launch)),
        http=lambda url: _servers("mcpServers", {
            "httpUrl": url, "headers": _bearer("$SEMLITH_AGENT_KEY")}),
        key="`$SEMLITH_AGENT_KEY` (or `${SEMLITH_AGENT_KEY}`) in any settings string",
        notes=("`httpUrl` is Streamable HTTP; `url` would mean SSE.",),
        sources=("https://geminicli.com/docs/tools/mcp-server",
                 "https://geminicli.com/docs/cli/configuration")),
    Client(  # https://modelcontextprotocol.io/docs/develop/connect-local-servers
        name="claude-desktop", title="Claude Desktop", syntax=Syntax.JSON,
        user_file=lambda p: p.app_data / "Claude" / "claude_desktop_config.json",
        project_file=None,
        stdio=lambda launch: _servers("mcpServers", _run(launch)),
        http=None,
        key="it adds remote servers as connectors, which neither reach a loopback daemon "
        "nor send a custom header",
        notes=("Settings → Developer → Edit Config opens the file; restart Claude Desktop "
               "after a change. There is no official Linux build; the Linux path is where "
               "community builds look.",),
        sources=("https://modelcontextprotocol.io/docs/develop/connect-local-servers",)),
    Client(  # https://docs.windsurf.com/windsurf/cascade/mcp
        name="windsurf", title="Windsurf", syntax=Syntax.JSON,
        user_file=lambda p: p.home / ".codeium" / "windsurf" / "mcp_config.json",
        project_file=None,
        stdio=lambda launch: _servers("mcpServers", _run(launch)),
        http=lambda url: _servers("mcpServers", {
            "serverUrl": url, "headers": _bearer("${env:SEMLITH_AGENT_KEY}")}),
        key="`${env:SEMLITH_AGENT_KEY}` in `headers` (Windsurf interpolates variables "
        "there)",
        notes=("Cascade's servers, one file for every workspace (Settings → Cascade → MCP "
               "servers → View raw config opens it). `serverUrl` is Windsurf's name for a "
               "remote server's address.",),
        sources=("https://docs.windsurf.com/windsurf/cascade/mcp",)),
    Client(  # https://docs.cline.bot/mcp/configuring-mcp-servers, .../getting-started/config
        name="cline", title="Cline", syntax=Syntax.JSON,
        user_file=lambda p: p.home / ".cline" / "data" / "settings" / "cline_mcp_settings.json",
        project_file=None,
        stdio=lambda launch: _servers("mcpServers", _run(launch)),
        http=None, key=NO_VARIABLES.format(title="Cline"),
        notes=("`~/.cline/data/settings/` is shared by Cline's VS Code extension, its CLI "
               "and its SDK (`CLINE_MCP_SETTINGS_PATH` moves it). Older releases of the "
               "extension kept the file in VS Code's global storage (`saoudrizwan.claude-dev/"
               "settings/`); MCP Servers → Configure → Configure MCP Servers opens the one "
               "yours reads.",),
        sources=("https://docs.cline.bot/mcp/configuring-mcp-servers",
                 "https://docs.cline.bot/getting-started/config")),
    Client(  # https://docs.roocode.com/features/mcp/using-mcp-in-roo
        name="roo-code", title="Roo Code", syntax=Syntax.JSON,
        user_file=_vscode_extension("rooveterinaryinc.roo-cline", "mcp_settings.json"),
        project_file=".roo/mcp.json",
        stdio=lambda launch: _servers("mcpServers", _run(launch)),
        http=None, key=NO_VARIABLES.format(title="Roo Code"),
        notes=("The user file lives in VS Code's global storage for the extension (Edit "
               "Global MCP opens it); a project's `.roo/mcp.json` takes precedence over it "
               "for a server of the same name.",),
        sources=("https://docs.roocode.com/features/mcp/using-mcp-in-roo",)),
    Client(  # https://kilo.ai/docs/automate/mcp/using-in-kilo-code
        name="kilo-code", title="Kilo Code", syntax=Syntax.JSON,
        user_file=lambda p: p.xdg_config / "kilo" / "kilo.jsonc",
        project_file=".kilo/kilo.jsonc",
        stdio=_local, http=_remote,
        key="`{env:SEMLITH_AGENT_KEY}` in `headers`",
        notes=("Kilo's VS Code extension and CLI share `kilo.jsonc` (JSON with comments); "
               "the command is one list. Releases before the move kept servers in "
               "`mcp_settings.json` under `mcpServers` (`.kilocode/mcp.json` in a "
               "project): those take the Roo Code form.",),
        sources=("https://kilo.ai/docs/automate/mcp/using-in-kilo-code",)),
    Client(  # https://docs.continue.dev/customize/deep-dives/mcp
        name="continue", title="Continue", syntax=Syntax.YAML,
        user_file=lambda p: p.home / ".continue" / "config.yaml",
        project_file=".continue/mcpServers/semlith.yaml",
        stdio=lambda launch: {"mcpServers": [{"name": SERVER, **_run(launch)}]},
        http=None, key=NO_VARIABLES.format(title="Continue"),
        notes=("`mcpServers` is a list in Continue's `config.yaml`; semlith's item is the "
               "one named `semlith`. A new file gets the `name`, `version` and `schema` "
               "a Continue config needs; a project's server is a block of its own in "
               "`.continue/mcpServers/`.",),
        sources=("https://docs.continue.dev/customize/deep-dives/mcp",
                 "https://docs.continue.dev/reference"),
        new_file=CONTINUE_BLOCK),
    Client(  # https://opencode.ai/docs/mcp-servers, https://opencode.ai/docs/config
        name="opencode", title="opencode", syntax=Syntax.JSON,
        user_file=lambda p: p.xdg_config / "opencode" / "opencode.json",
        project_file="opencode.json",
        stdio=_local, http=_remote,
        key="`{env:SEMLITH_AGENT_KEY}` in `headers`",
        notes=("The command is one list. opencode 2's configs may also nest servers under "
               "`mcp.servers`; semlith writes the form opencode 1 documents, which both "
               "read.",),
        sources=("https://opencode.ai/docs/mcp-servers", "https://opencode.ai/docs/config"),
        new_file={"$schema": "https://opencode.ai/config.json"}),
    Client(  # https://block.github.io/goose/docs/guides/config-files
        name="goose", title="goose", syntax=Syntax.YAML,
        user_file=lambda p: (p.app_data / "Block" / "goose" / "config" if p.system == "win32"
                             else p.xdg_config / "goose") / "config.yaml",
        project_file=None,
        stdio=lambda launch: _servers("extensions", {
            "type": "stdio", "name": SERVER, "enabled": True, "cmd": launch.command,
            "args": list(launch.args), "envs": {}, "timeout": 300}),
        http=None, key="goose sends `headers` as written, so the key would sit in the file",
        notes=("An extension in `config.yaml`; `goose configure` lists it. goose rewrites "
               "the file when you change settings in it, which keeps the entry.",),
        sources=("https://block.github.io/goose/docs/guides/config-files",)),
    Client(  # https://www.jetbrains.com/help/ai-assistant/mcp.html
        name="jetbrains", title="JetBrains AI Assistant", syntax=Syntax.JSON,
        user_file=None, project_file=None,
        stdio=lambda launch: _servers("mcpServers", _run(launch)),
        http=None, key="its documented HTTP form has no place for a header",
        notes=("AI Assistant keeps its servers in the IDE's settings, not in a file semlith "
               f"can edit: paste the entry in {JETBRAINS_SETTINGS}, then choose Global or "
               "the current project. `--write` is refused. The instruction block goes in a "
               "project rule (Settings | Tools | AI Assistant | Rules).",),
        sources=("https://www.jetbrains.com/help/ai-assistant/mcp.html",),
        settings=JETBRAINS_SETTINGS),
)


def find(name: str) -> Client:
    for client in CLIENTS:
        if client.name == name:
            return client
    raise ValueError(f"unknown client {name!r}; choose one of: "
                     f"{', '.join(c.name for c in CLIENTS)}")


def config_for(client: Client, form: Form, launch: Launch, port: int) -> Config:
    """semlith's entry as `client` reads it; ValueError if `client` has no HTTP form."""
    if form is Form.STDIO:
        return client.stdio(launch)
    if client.http is None:
        raise ValueError(f"{client.title} has no HTTP form: {client.key}; drop --http "
                         "to use the stdio form")
    return client.http(f"http://127.0.0.1:{port}/mcp")


def config_path(client: Client, places: Places, project: Path | None = None) -> Path | None:
    """The file to change: the project's when `project` is given, else the user's; None
    for a client that keeps its servers in its settings (for a project too)."""
    if client.user_file is None:
        return None
    if project is None:
        return Path(client.user_file(places))
    if client.project_file is None:
        raise ValueError(f"{client.title} has no per-project config; drop --project to "
                         f"use {client.user_file(places)}")
    return project / client.project_file


def locations(client: Client) -> dict[str, str]:
    """Where `client` keeps its user config on each system, as the docs write them."""
    if client.user_file is None:
        return {}
    return {label: str(client.user_file(Places.symbolic(system)))
            for system, label in SYSTEMS.items()}


def entry_in(client: Client, data: object) -> dict[str, Any] | None:
    """semlith's entry in `data` (a parsed config of `client`); None when there is none."""
    if not isinstance(data, dict):
        return None
    for key, shape in client.stdio(EXAMPLE).items():
        held = data.get(key)
        if isinstance(shape, dict) and isinstance(held, dict):
            entry = held.get(SERVER)
        elif isinstance(shape, list) and isinstance(held, list):
            entry = next((i for i in held if isinstance(i, dict) and i.get("name") == SERVER),
                         None)
        else:
            continue
        return entry if isinstance(entry, dict) else None
    return None
