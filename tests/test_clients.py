"""The client table: where each client's config lives on each system, and how it is
told to start `semlith mcp` (and how doctor reads that back)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath

import pytest

from semlith.setup import clients
from semlith.setup.launch import Launch, argv_of, locate, problem


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
    ("win32", {}, "windsurf", "/h/.codeium/windsurf/mcp_config.json"),
    ("darwin", {}, "cline", "/h/.cline/data/settings/cline_mcp_settings.json"),
    ("darwin", {}, "roo-code", "/h/Library/Application Support/Code/User/globalStorage/"
     "rooveterinaryinc.roo-cline/settings/mcp_settings.json"),
    ("win32", {"APPDATA": "C:/R"}, "roo-code",
     "C:/R/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json"),
    ("linux", {"XDG_CONFIG_HOME": "/x"}, "kilo-code", "/x/kilo/kilo.jsonc"),
    ("win32", {"XDG_CONFIG_HOME": "/x"}, "kilo-code", "/h/.config/kilo/kilo.jsonc"),
    ("win32", {}, "continue", "/h/.continue/config.yaml"),
    ("linux", {"XDG_CONFIG_HOME": "/x"}, "opencode", "/x/opencode/opencode.json"),
    ("darwin", {}, "opencode", "/h/.config/opencode/opencode.json"),
    ("darwin", {}, "goose", "/h/.config/goose/config.yaml"),
    ("win32", {"APPDATA": "C:/R"}, "goose", "C:/R/Block/goose/config/config.yaml"),
])
def test_each_system_has_its_own_places(system: str, environ: dict[str, str], client: str,
                                        want: str) -> None:
    places = clients.Places.of(system, environ, Path("/h"))
    assert clients.config_path(clients.find(client), places) == Path(want)


def test_symbolic_places_use_each_systems_own_notation() -> None:
    assert clients.Places.symbolic("win32").app_data == PureWindowsPath("%APPDATA%")
    assert clients.Places.symbolic("darwin").home == PurePosixPath("~")


def test_settings_clients_have_no_file_on_any_system() -> None:
    jetbrains = clients.find("jetbrains")
    assert clients.config_path(jetbrains, clients.Places.here()) is None
    assert clients.config_path(jetbrains, clients.Places.here(), Path("/p")) is None
    assert clients.locations(jetbrains) == {} and "AI Assistant" in jetbrains.settings


def test_locate_names_the_running_script_then_the_one_beside_python(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "pipx").mkdir()
    python = tmp_path / "venv" / "bin" / "python"
    bare = locate(argv0="/x/pytest", python=str(python))  # no script anywhere
    assert bare.argv == (str(python), "-P", "-m", "semlith", "mcp") and bare.note
    (tmp_path / "venv" / "bin" / "semlith").write_text("")
    beside = locate(argv0="/x/pytest", python=str(python))
    assert beside == Launch(str(tmp_path / "venv" / "bin" / "semlith"))
    running = tmp_path / "pipx" / "semlith"  # the script that ran setup comes first
    running.write_text("")
    assert locate(argv0=str(running), python=str(python)).argv == (str(running), "mcp")
    monkeypatch.chdir(tmp_path)
    assert locate(argv0="pipx/semlith", python=str(python)).command == str(running)


@pytest.mark.parametrize(("entry", "argv"), [
    ({"command": "/a/semlith", "args": ["mcp"]}, ("/a/semlith", "mcp")),
    ({"type": "local", "command": ["/a/semlith", "mcp"]}, ("/a/semlith", "mcp")),
    ({"type": "stdio", "cmd": "/a/semlith", "args": ["mcp"]}, ("/a/semlith", "mcp")),
    ({"command": "semlith"}, ("semlith",)),
    ({"url": "http://127.0.0.1:7365/mcp"}, None),
    ({"command": ["semlith", 3]}, None),
])
def test_argv_of_reads_every_clients_fields(entry: dict[str, object],
                                            argv: tuple[str, ...] | None) -> None:
    assert argv_of(entry) == argv


def test_problem_judges_the_command_a_client_runs(tmp_path: Path) -> None:
    script = tmp_path / "venv" / "bin" / "semlith"
    script.parent.mkdir(parents=True)
    script.write_text("")
    link = tmp_path / "link"
    link.symlink_to(script)
    other = tmp_path / "other" / "semlith"
    other.parent.mkdir()
    other.write_text("")
    launch = Launch(str(script))
    assert problem((str(script), "mcp"), launch) == ""
    assert problem((str(link), "mcp"), launch) == ""  # the same file by another path
    assert "other than this one" in problem((str(other), "mcp"), launch)
    assert "does not exist" in problem(("/gone/semlith", "mcp"), launch)
    assert "may not find" in problem(("semlith", "mcp"), launch, which=lambda n: "/x")
    assert "not on PATH" in problem(("semlith", "mcp"), launch, which=lambda n: None)
    assert "not `semlith mcp`" in problem((str(script), "serve"), launch)
    assert problem(None, launch) == "names no command to start"


def test_unknown_client_lists_the_choices() -> None:
    with pytest.raises(ValueError, match="claude-code, codex, cursor"):
        clients.find("emacs")
