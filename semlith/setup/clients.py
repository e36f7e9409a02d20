"""The MCP clients `semlith setup` configures: where each keeps its config, semlith's entry.

This table is the one source of truth: `semlith setup` prints and writes from it, and the
per-client part of docs/clients.md is generated from it (`scripts/gen_docs.py`, checked
in CI; `semlith setup --docs` prints the same text from the installed package).

The stdio form (`semlith mcp`) holds no secret: the proxy reads the key itself. The HTTP
form refers to the key in the client's own variable syntax, never by value; a client
that cannot expand variables in its config gets the stdio form only.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath
from typing import Any

from semlith.setup.configfile import Config, Syntax, render

SERVER = "semlith"
KEY_VARIABLE = "SEMLITH_AGENT_KEY"
SYSTEMS = {"linux": "Linux", "darwin": "macOS", "win32": "Windows"}


class Form(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


@dataclass(frozen=True, slots=True)
class Launch:
    """The command a client runs to start `semlith mcp`; `note` says why, when not plain."""

    command: str = "semlith"
    args: tuple[str, ...] = ("mcp",)
    note: str = ""


@dataclass(frozen=True, slots=True)
class Places:
    """The per-user folders clients keep their config in, on one system."""

    system: str  # a sys.platform value: linux, darwin, win32
    home: PurePath
    app_data: PurePath  # Electron's: XDG config, ~/Library/Application Support, %APPDATA%
    xdg_config: PurePath  # $XDG_CONFIG_HOME or ~/.config (Zed on Linux and macOS)
    codex_home: PurePath  # $CODEX_HOME or ~/.codex

    @classmethod
    def of(cls, system: str, environ: Mapping[str, str], home: Path) -> Places:
        """The real folders on `system`, given its environment and home folder."""
        def var(name: str, default: Path) -> Path:
            return Path(environ[name]) if environ.get(name, "").strip() else default

        # Zed honours XDG_CONFIG_HOME on Linux only (zed.dev/docs/configuring-zed).
        xdg = var("XDG_CONFIG_HOME", home / ".config") if system not in SYSTEMS or \
            system == "linux" else home / ".config"
        app_data = {"win32": var("APPDATA", home / "AppData" / "Roaming"),
                    "darwin": home / "Library" / "Application Support"}.get(system, xdg)
        return cls(system, home, app_data, xdg, var("CODEX_HOME", home / ".codex"))

    @classmethod
    def here(cls) -> Places:
        return cls.of(sys.platform, os.environ, Path.home())

    @classmethod
    def symbolic(cls, system: str) -> Places:
        """The folders as the docs write them (`~`, `%APPDATA%`)."""
        if system == "win32":
            profile = PureWindowsPath("%USERPROFILE%")
            appdata = PureWindowsPath("%APPDATA%")
            return cls(system, profile, appdata, appdata, profile / ".codex")
        home = PurePosixPath("~")
        app_data = home / "Library/Application Support" if system == "darwin" \
            else home / ".config"
        return cls(system, home, app_data, home / ".config", home / ".codex")


@dataclass(frozen=True, slots=True)
class Client:
    name: str  # the CLIENT argument
    title: str
    syntax: Syntax
    user_file: Callable[[Places], PurePath]
    project_file: str | None  # relative to --project DIR; None: no per-project config
    stdio: Callable[[Launch], Config]
    http: Callable[[str], Config] | None  # url -> config; None: the key would be in the file
    key: str  # how the HTTP form refers to the key; without one, why not
    notes: tuple[str, ...]  # Markdown, for the docs
    sources: tuple[str, ...]  # where the format is documented
    caveat: str = ""  # what `setup` says beside the user config


def _servers(key: str, entry: dict[str, Any]) -> Config:
    return {key: {SERVER: entry}}


def _run(launch: Launch) -> dict[str, Any]:
    return {"command": launch.command, "args": list(launch.args)}


def _bearer(reference: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {reference}"}


VSCODE_INPUT = {"type": "promptString", "id": "semlith-key", "password": True,
                "description": "semlith agent key (semlith key show)"}

CLIENTS: tuple[Client, ...] = (
    Client(
        name="claude-code", title="Claude Code", syntax=Syntax.JSON,
        user_file=lambda p: p.home / ".claude.json", project_file=".mcp.json",
        stdio=lambda launch: _servers("mcpServers", _run(launch)),
        http=lambda url: _servers("mcpServers", {
            "type": "http", "url": url, "headers": _bearer("${SEMLITH_AGENT_KEY}")}),
        key="`${SEMLITH_AGENT_KEY}` in `headers`",
        notes=("`~/.claude.json` holds the user-level servers and is also state Claude Code "
               "rewrites while it runs: quit it before `--write`, or run `claude mcp add "
               "--scope user semlith -- semlith mcp` instead. `--project DIR` writes the "
               "shared `.mcp.json`.",
               "Older releases sent `${VAR}` in `headers` verbatim "
               "(anthropics/claude-code#6204, #51581); the stdio form does not depend on it."),
        sources=("https://code.claude.com/docs/en/mcp",),
        caveat="Claude Code rewrites ~/.claude.json while it runs: quit it first, or use "
        "`claude mcp add --scope user semlith -- semlith mcp`"),
    Client(
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
    Client(
        name="cursor", title="Cursor", syntax=Syntax.JSON,
        user_file=lambda p: p.home / ".cursor" / "mcp.json", project_file=".cursor/mcp.json",
        stdio=lambda launch: _servers("mcpServers", _run(launch)),
        http=lambda url: _servers("mcpServers", {
            "url": url, "headers": _bearer("${env:SEMLITH_AGENT_KEY}")}),
        key="`${env:SEMLITH_AGENT_KEY}` in `headers`",
        notes=(),
        sources=("https://cursor.com/docs/mcp",)),
    Client(
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
    Client(
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
    Client(
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
    Client(
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
        sources=("https://modelcontextprotocol.io/docs/develop/connect-local-servers",),
        caveat="if Claude Desktop cannot start `semlith` (a GUI app may not see your "
        "shell's PATH), put the output of `which semlith` in `command`"),
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


def config_path(client: Client, places: Places, project: Path | None = None) -> Path:
    """The file to change: the project's when `project` is given, else the user's."""
    if project is None:
        return Path(client.user_file(places))
    if client.project_file is None:
        raise ValueError(f"{client.title} has no per-project config; drop --project to "
                         f"use {client.user_file(places)}")
    return project / client.project_file


def locate(which: Callable[[str], str | None] = shutil.which,
           python: str = sys.executable) -> Launch:
    """How a client should start the proxy: `semlith` when PATH finds it, else the
    absolute path of this installation's script (a virtualenv's bin/ is not on PATH)."""
    if which("semlith"):
        return Launch()
    folder = Path(python).absolute().parent  # not resolved: a venv's python is a symlink
    for name in ("semlith", "semlith.exe"):
        if (folder / name).is_file():
            return Launch(str(folder / name), note=f"`semlith` is not on PATH; the config "
                          f"names {folder / name}, this installation's script")
    # No script (a source checkout): -P keeps a `semlith/` folder in the client's working
    # folder from shadowing the package (issue #12).
    return Launch(str(Path(python).absolute()), ("-P", "-m", "semlith", "mcp"),
                  note="`semlith` is not on PATH and has no script beside "
                  f"{python}; the config runs the module with that interpreter")


def locations(client: Client) -> dict[str, str]:
    """Where `client` keeps its user config on each system, as the docs write it."""
    return {label: str(client.user_file(Places.symbolic(system)))
            for system, label in SYSTEMS.items()}


def reference(port: int = 7365) -> str:
    """Every client's files, snippets and caveats in Markdown: the generated part of
    docs/clients.md, and what `semlith setup --docs` prints."""
    parts = []
    for client in CLIENTS:
        where = ", ".join(f"{system} `{path}`" for system, path in locations(client).items())
        project = f"`DIR/{client.project_file}`" if client.project_file else "none"
        fence = client.syntax.value
        parts += [f"### {client.title}\n",
                  f"`semlith setup {client.name}` prints, `--write` merges into:\n",
                  f"- user config: {where}",
                  f"- project config (`--project DIR`): {project}",
                  (f"- the key in the HTTP form: {client.key}\n" if client.http else
                   f"- no HTTP form: {client.key}\n"),
                  f"```{fence}\n{render(client.stdio(Launch()), client.syntax)}```\n"]
        if client.http is not None:
            http = client.http(f"http://127.0.0.1:{port}/mcp")
            parts.append(f"with `--http`:\n\n```{fence}\n{render(http, client.syntax)}```\n")
        parts += [f"{note}\n" for note in client.notes]
        parts.append("Documented at: " + ", ".join(client.sources) + "\n")
    return "\n".join(parts)
