"""The client table: where each client's config lives on each system, and how it is
told to start `semlith mcp`."""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath

import pytest

from semlith.setup import clients


@pytest.mark.parametrize(("system", "environ", "client", "want"), [
    ("win32", {"APPDATA": "C:/Users/a/AppData/Roaming"}, "vscode",
     "C:/Users/a/AppData/Roaming/Code/User/mcp.json"),
    ("win32", {"APPDATA": "C:/R"}, "zed", "C:/R/Zed/settings.json"),
    ("win32", {"APPDATA": "C:/R"}, "claude-desktop", "C:/R/Claude/claude_desktop_config.json"),
    ("win32", {}, "cursor", "/h/.cursor/mcp.json"),
    ("darwin", {"XDG_CONFIG_HOME": "/x"}, "zed", "/h/.config/zed/settings.json"),
    ("darwin", {}, "claude-desktop",
     "/h/Library/Application Support/Claude/claude_desktop_config.json"),
    ("darwin", {}, "vscode", "/h/Library/Application Support/Code/User/mcp.json"),
    ("linux", {"XDG_CONFIG_HOME": "/x"}, "zed", "/x/zed/settings.json"),
    ("linux", {"XDG_CONFIG_HOME": "/x"}, "vscode", "/x/Code/User/mcp.json"),
    ("linux", {}, "claude-desktop", "/h/.config/Claude/claude_desktop_config.json"),
    ("linux", {"CODEX_HOME": "/c"}, "codex", "/c/config.toml"),
    ("linux", {}, "codex", "/h/.codex/config.toml"),
    ("linux", {}, "gemini", "/h/.gemini/settings.json"),
    ("linux", {}, "claude-code", "/h/.claude.json"),
])
def test_each_system_has_its_own_places(system: str, environ: dict[str, str], client: str,
                                        want: str) -> None:
    places = clients.Places.of(system, environ, Path("/h"))
    assert clients.config_path(clients.find(client), places) == Path(want)


def test_symbolic_places_use_each_systems_own_notation() -> None:
    assert clients.Places.symbolic("win32").app_data == PureWindowsPath("%APPDATA%")
    assert clients.Places.symbolic("darwin").home == PurePosixPath("~")


def test_locate_prefers_path_then_the_script_beside_python(tmp_path: Path) -> None:
    assert clients.locate(which=lambda name: "/usr/bin/semlith").command == "semlith"
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    bare = clients.locate(which=lambda name: None, python=str(python))
    assert bare.args == ("-P", "-m", "semlith", "mcp") and bare.command == str(python)
    (tmp_path / "bin" / "semlith").write_text("")
    script = clients.locate(which=lambda name: None, python=str(python))
    assert script.command == str(tmp_path / "bin" / "semlith") and script.args == ("mcp",)
    assert "not on PATH" in script.note


def test_unknown_client_lists_the_choices() -> None:
    with pytest.raises(ValueError, match="claude-code, codex, cursor"):
        clients.find("emacs")
