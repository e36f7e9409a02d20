"""What each MCP client's documentation says (docs/clients.md cites it), written here from
the docs rather than from semlith/setup/clients.py, for the `semlith setup` tests: where
its user config lives, its format, a config a person might already have, and where
semlith's entry and its command line sit in it.

`places` is a fixture: a test module imports it (`# noqa: F401`) to use it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from semlith.setup.jsonc import loads as loads_jsonc

Getter = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class Case:
    user_file: str  # under tmp_path: home/ is HOME, xdg/ XDG_CONFIG_HOME (Linux)
    syntax: str  # json (JSONC where the client allows comments), toml, yaml
    existing: str  # another server and a setting, as a person's file might hold them
    entry: Getter  # semlith's entry in the parsed file
    other: Getter  # the other server, which --write must keep
    argv: Getter  # the command line semlith's entry runs


def _servers(key: str) -> tuple[Getter, Getter]:
    return (lambda c: c[key]["semlith"]), (lambda c: c[key]["other"])


def _json(key: str, comment: bool = False) -> str:
    note = "  // mine\n" if comment else ""
    return ('{\n' + note + '  "theme": "dark",\n  "' + key + '": {\n'
            '    "other": {"command": "other-server", "args": ["--flag"]}\n  }\n}\n')


def _plain(key: str, comment: bool = False) -> Case:
    """A client whose servers are `KEY.NAME` with `command` and `args`."""
    entry, other = _servers(key)
    return Case("", "json", _json(key, comment), entry, other,
                lambda e: [e["command"], *e["args"]])


def _with(case: Case, user_file: str) -> Case:
    return Case(user_file, case.syntax, case.existing, case.entry, case.other, case.argv)


OPENCODE_EXISTING = ('{\n  "$schema": "https://opencode.ai/config.json",\n  // mine\n'
                     '  "mcp": {\n    "other": {"type": "local", "command": ["other-server"]}'
                     '\n  },\n}\n')
CASES: dict[str, Case] = {
    "claude-code": _with(_plain("mcpServers"), "home/.claude.json"),
    "codex": Case("home/.codex/config.toml", "toml",
                  'model = "o3"\n\n# mine\n[mcp_servers.other]\ncommand = "other-server"\n'
                  'args = ["--flag"]\n', *_servers("mcp_servers"),
                  lambda e: [e["command"], *e["args"]]),
    "cursor": _with(_plain("mcpServers"), "home/.cursor/mcp.json"),
    "vscode": _with(_plain("servers", comment=True), "xdg/Code/User/mcp.json"),
    "zed": _with(_plain("context_servers", comment=True), "xdg/zed/settings.json"),
    "gemini": _with(_plain("mcpServers"), "home/.gemini/settings.json"),
    "claude-desktop": _with(_plain("mcpServers"), "xdg/Claude/claude_desktop_config.json"),
    "windsurf": _with(_plain("mcpServers"), "home/.codeium/windsurf/mcp_config.json"),
    "cline": _with(_plain("mcpServers"), "home/.cline/data/settings/cline_mcp_settings.json"),
    "roo-code": _with(_plain("mcpServers"), "xdg/Code/User/globalStorage/"
                      "rooveterinaryinc.roo-cline/settings/mcp_settings.json"),
    "kilo-code": Case("xdg/kilo/kilo.jsonc", "json", OPENCODE_EXISTING, *_servers("mcp"),
                      lambda e: e["command"]),
    "continue": Case("home/.continue/config.yaml", "yaml",
                     "name: Local Assistant\nversion: 1.0.0\nschema: v1\n# mine\n"
                     "mcpServers:\n  - name: other\n    command: other-server\n",
                     lambda c: next(s for s in c["mcpServers"] if s["name"] == "semlith"),
                     lambda c: next(s for s in c["mcpServers"] if s["name"] == "other"),
                     lambda e: [e["command"], *e["args"]]),
    "opencode": Case("xdg/opencode/opencode.json", "json", OPENCODE_EXISTING,
                     *_servers("mcp"), lambda e: e["command"]),
    "goose": Case("xdg/goose/config.yaml", "yaml",
                  "# mine\nGOOSE_PROVIDER: openai\nextensions:\n  other:\n    type: builtin\n"
                  "    name: other\n    enabled: true\nGOOSE_MODEL: gpt-4o\n",
                  *_servers("extensions"), lambda e: [e["cmd"], *e["args"]]),
}
PASTED = {"jetbrains": _plain("mcpServers")}  # kept in its settings: printed, not written
HTTP_CLIENTS = ["claude-code", "codex", "cursor", "vscode", "gemini", "windsurf", "kilo-code",
                "opencode"]


def parse(text: str, syntax: str) -> dict[str, Any]:
    if syntax == "toml":
        return tomllib.loads(text)
    data: dict[str, Any] = yaml.safe_load(text) if syntax == "yaml" else loads_jsonc(text)
    return data


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return lay_places(tmp_path, monkeypatch)


def lay_places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME, XDG_CONFIG_HOME and APPDATA in tmp_path; a `semlith` on PATH that is not
    this installation's (setup must not write a bare name it finds there)."""
    for name in ("home", "xdg", "appdata", "bin"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("APPDATA", str(tmp_path / "appdata"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    script = tmp_path / "bin" / "semlith"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setattr("sys.platform", "linux")
    return tmp_path
