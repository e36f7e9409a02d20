"""`semlith setup CLIENT`: the HTTP forms, the refusals (bad files untouched), the
project configs, the JSON output and the instruction block. What every client shares
(its entry parses, merges, names this semlith, holds no key) is in test_setup_clients.py."""

from __future__ import annotations

import json
import stat
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from semlith.base.home import agent_key
from semlith.setup.jsonc import loads as loads_jsonc
from semlith.setup.launch import locate
from tests.cli_util import run
from tests.setup_util import CASES, lay_places

SERVERS_KEY = {"claude-code": "mcpServers", "codex": "mcp_servers", "cursor": "mcpServers",
               "vscode": "servers", "zed": "context_servers", "gemini": "mcpServers",
               "claude-desktop": "mcpServers"}
USER_FILE = {name: CASES[name].user_file for name in SERVERS_KEY}
MCP = {"command": locate().command, "args": ["mcp"]}  # this installation's, absolute


@pytest.fixture(autouse=True)
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return lay_places(tmp_path, monkeypatch)


def parse(text: str, client: str) -> dict[str, Any]:
    return tomllib.loads(text) if client == "codex" else loads_jsonc(text)


def entry(config: dict[str, Any], client: str) -> dict[str, Any]:
    server: dict[str, Any] = config[SERVERS_KEY[client]]["semlith"]
    return server


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize(("client", "field", "want"), [
    ("claude-code", "Authorization", "Bearer ${SEMLITH_AGENT_KEY}"),
    ("cursor", "Authorization", "Bearer ${env:SEMLITH_AGENT_KEY}"),
    ("vscode", "Authorization", "Bearer ${input:semlith-key}"),
    ("gemini", "Authorization", "Bearer $SEMLITH_AGENT_KEY"),
    ("codex", "bearer_token_env_var", "SEMLITH_AGENT_KEY"),
])
def test_http_refers_to_the_key_in_the_clients_own_syntax(
        client: str, field: str, want: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEMLITH_PORT", "7400")
    config = parse(ok(run("setup", client, "--http")).stdout, client)
    server = entry(config, client)
    assert server.get("headers", server).get(field) == want
    assert server.get("url", server.get("httpUrl")) == "http://127.0.0.1:7400/mcp"
    if client == "vscode":
        assert server["type"] == "http"
        assert config["inputs"] == [{"type": "promptString", "id": "semlith-key",
                                     "password": True, "description": "semlith agent key "
                                     "(semlith key show)"}]


@pytest.mark.parametrize("client", ["zed", "claude-desktop"])
def test_http_is_refused_where_the_key_would_sit_in_the_file(client: str) -> None:
    result = run("setup", client, "--http", "--write")
    assert result.exit_code == 2 and "stdio form" in result.output
    as_json = run("setup", client, "--http", "--json")
    assert as_json.exit_code == 2 and "no HTTP form" in json.loads(as_json.stdout)["error"]


def test_switching_form_updates_the_entry_and_keeps_the_first_backup(places: Path) -> None:
    path = places / USER_FILE["cursor"]
    path.parent.mkdir(parents=True)
    path.write_text('{"mcpServers": {}}')
    ok(run("setup", "cursor", "--write"))
    assert "updated semlith" in ok(run("setup", "cursor", "--http", "--write")).stdout
    assert "url" in entry(json.loads(path.read_text()), "cursor")
    assert path.with_name("mcp.json.semlith-backup").read_text() == '{"mcpServers": {}}'


def test_zed_settings_keep_their_comments(places: Path) -> None:
    path = places / USER_FILE["zed"]
    path.parent.mkdir(parents=True)
    path.write_text("// Zed settings\n{\n  \"ui_font_size\": 16, // big\n"
                    "  /* block */ \"vim_mode\": true,\n}\n")
    ok(run("setup", "zed", "--write"))
    text = path.read_text()
    assert text.startswith("// Zed settings\n{") and "// big" in text and "/* block */" in text
    config = loads_jsonc(text)
    assert config["ui_font_size"] == 16 and config["vim_mode"] is True
    assert config["context_servers"]["semlith"] == MCP


@pytest.mark.parametrize(("client", "text"), [
    ("cursor", '{"mcpServers": {"other": '),
    ("vscode", "{\"servers\": {}} trailing"),
    ("gemini", "\xff\xfe binary"),
    ("codex", "[mcp_servers.other\ncommand = 1\n"),
    ("claude-desktop", "[]"),
    ("claude-code", '{"mcpServers": ["not", "a", "table"]}'),
    ("codex", "mcp_servers = { semlith = { command = \"old\" } }\n"),
])
def test_a_file_that_cannot_be_merged_is_refused_and_untouched(
        client: str, text: str, places: Path) -> None:
    path = places / USER_FILE[client]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("latin-1"))
    result = run("setup", client, "--write")
    assert result.exit_code == 1
    assert result.stderr.startswith("semlith: error: ") and str(path) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert path.read_bytes() == text.encode("latin-1")
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temp, no backup
    as_json = run("setup", client, "--write", "--json")
    assert as_json.exit_code == 1 and str(path) in json.loads(as_json.stdout)["error"]


def test_codex_table_is_replaced_and_other_tables_kept(places: Path) -> None:
    path = places / USER_FILE["codex"]
    path.parent.mkdir(parents=True)
    path.write_text('[mcp_servers.semlith]\ncommand = "old"\nargs = []\n\n'
                    '# my profile\n[profiles.fast]\nmodel = "o4-mini"\n')
    assert "updated semlith" in ok(run("setup", "codex", "--write")).stdout
    text = path.read_text()
    assert "# my profile\n[profiles.fast]" in text
    config = tomllib.loads(text)
    assert config["mcp_servers"]["semlith"] == MCP
    assert config["profiles"] == {"fast": {"model": "o4-mini"}}


@pytest.mark.parametrize(("client", "relative"), [
    ("claude-code", ".mcp.json"), ("cursor", ".cursor/mcp.json"),
    ("vscode", ".vscode/mcp.json"), ("gemini", ".gemini/settings.json"),
    ("zed", ".zed/settings.json"), ("codex", ".codex/config.toml"),
])
def test_project_config(client: str, relative: str, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    ok(run("setup", client, "--project", str(project), "--write"))
    assert entry(parse((project / relative).read_text(), client), client)["args"] == ["mcp"]


def test_project_is_refused_for_a_client_without_one(tmp_path: Path) -> None:
    result = run("setup", "claude-desktop", "--project", str(tmp_path))
    assert result.exit_code == 2 and "no per-project config" in result.output
    assert run("setup", "cursor", "--project", str(tmp_path / "missing")).exit_code == 2


def test_json_output(places: Path) -> None:
    printed = json.loads(ok(run("setup", "cursor", "--json")).stdout)
    assert printed.pop("instructions")["path"] is None  # Cursor keeps user rules in its UI
    assert printed == {"client": "cursor", "path": str(places / USER_FILE["cursor"]),
                       "settings": None, "config": {"mcpServers": {"semlith": MCP}},
                       "written": None, "notes": []}
    written = json.loads(ok(run("setup", "cursor", "--write", "--json")).stdout)
    assert written["written"] == "created"


def test_without_a_script_the_entry_runs_the_package_and_says_so(
        monkeypatch: pytest.MonkeyPatch, places: Path) -> None:
    python = places / "bare" / "python"  # an interpreter with no `semlith` beside it
    monkeypatch.setattr("sys.executable", str(python))
    result = ok(run("setup", "cursor", "--json"))
    server = entry(json.loads(result.stdout)["config"], "cursor")
    assert server == {"command": str(python), "args": ["-P", "-m", "semlith", "mcp"]}
    assert any("no `semlith` script" in n for n in json.loads(result.stdout)["notes"])
    assert "no `semlith` script" in ok(run("setup", "cursor")).stderr
    assert "no `semlith` script" not in ok(run("setup", "cursor", "--http")).stderr


def test_write_keeps_mode_symlink_crlf_and_bom(places: Path) -> None:
    real = places / "dotfiles" / "claude.json"
    real.parent.mkdir()
    real.write_bytes(b'\xef\xbb\xbf{\r\n  "numStartups": 3\r\n}\r\n')
    real.chmod(0o600)
    link = places / USER_FILE["claude-code"]
    link.symlink_to(real)
    ok(run("setup", "claude-code", "--write"))
    assert link.is_symlink() and stat.S_IMODE(real.stat().st_mode) == 0o600
    raw = real.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf{\r\n") and b"\n" not in raw.replace(b"\r\n", b"")
    config = loads_jsonc(raw.decode("utf-8-sig"))
    assert config["numStartups"] == 3 and "semlith" in config["mcpServers"]


def test_docs_are_the_shipped_reference_and_docs_clients_md_holds_it() -> None:
    from semlith.setup.reference import reference

    assert ok(run("setup", "--docs")).stdout == reference()
    md = (Path(__file__).resolve().parents[2] / "docs" / "clients.md").read_text()
    assert reference() in md


@pytest.mark.parametrize("args", [[], ["nope"], ["cursor", "--list"], ["--docs", "--write"]])
def test_usage_errors_exit_2(args: list[str]) -> None:
    result = run("setup", *args)
    assert result.exit_code == 2, result.output


def test_key_show_points_to_setup(semlith_home: Path) -> None:
    result = ok(run("key", "show"))
    assert agent_key(semlith_home) in result.stdout  # the one place the key is shown
    assert "semlith setup CLIENT" in result.stderr


# -- the instruction block (#23) -------------------------------------------------------

INSTRUCTION_FILE = {"claude-code": "home/.claude/CLAUDE.md", "codex": "home/.codex/AGENTS.md",
                    "gemini": "home/.gemini/GEMINI.md"}
MARKER = "<!-- semlith: begin"


@pytest.mark.parametrize("client", SERVERS_KEY)
def test_setup_prints_the_instruction_block_and_writes_nothing(client: str,
                                                               places: Path) -> None:
    result = ok(run("setup", client))
    assert "call\n  `semlith_search` before grep or reading whole files" in result.stderr
    assert "semlith_search" not in result.stdout  # stdout stays the config alone
    if client in INSTRUCTION_FILE:
        assert f"for {places / INSTRUCTION_FILE[client]}; --write adds it" in result.stderr
        assert not (places / INSTRUCTION_FILE[client]).exists()
    else:
        assert "settings (it keeps them there, not in a file)" in result.stderr


@pytest.mark.parametrize("client", sorted(INSTRUCTION_FILE))
def test_write_adds_the_block_once_and_keeps_the_rest(client: str, places: Path) -> None:
    guide = places / INSTRUCTION_FILE[client]
    guide.parent.mkdir(parents=True, exist_ok=True)
    guide.write_text("# My rules\n\n- Be terse.\n")
    first = ok(run("setup", client, "--write")).stdout
    assert f"added semlith's instructions to {guide}" in first
    text = guide.read_text()
    assert text.startswith("# My rules\n\n- Be terse.\n\n") and text.count(MARKER) == 1
    again = ok(run("setup", client, "--write")).stdout
    assert f"{guide} already has semlith's instructions; nothing changed" in again
    assert guide.read_text() == text


def test_an_edited_block_is_replaced_and_what_follows_it_kept(places: Path) -> None:
    guide = places / INSTRUCTION_FILE["claude-code"]
    ok(run("setup", "claude-code", "--write"))
    written = guide.read_text()
    guide.write_text(written.replace("Keep grep", "Never grep") + "\n# Later notes\n")
    ok(run("setup", "claude-code", "--write"))
    assert guide.read_text() == written + "# Later notes\n"


def test_a_project_cursor_rule_has_its_front_matter(places: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    ok(run("setup", "cursor", "--project", str(project), "--write"))
    rule = (project / ".cursor" / "rules" / "semlith.mdc").read_text()
    assert rule.startswith("---\ndescription: ") and "alwaysApply: true\n---\n" in rule
    assert MARKER in rule and "semlith_search" in rule


def test_a_client_without_an_instruction_file_says_where_to_paste(places: Path) -> None:
    result = ok(run("setup", "cursor", "--write"))
    assert "Cursor keeps agent instructions in its settings" in result.stderr
    assert not list((places / "home").rglob("*.md")) and \
        not list((places / "home").rglob("*.mdc"))


def test_json_carries_the_instructions(places: Path) -> None:
    out = json.loads(ok(run("setup", "gemini", "--json")).stdout)
    assert out["instructions"]["path"] == str(places / INSTRUCTION_FILE["gemini"])
    assert "semlith_read" in out["instructions"]["text"] and out["instructions"]["written"] is None
    out = json.loads(ok(run("setup", "gemini", "--write", "--json")).stdout)
    assert out["instructions"]["written"] is True


def test_the_instruction_block_names_only_the_listed_tools() -> None:
    import re

    from semlith.server.mcp import LISTED
    from semlith.setup.instructions import BLOCK

    named = set(re.findall(r"semlith_[a-z]+", BLOCK))
    assert named == LISTED  # each listed tool, and none an agent's tools/list hides
