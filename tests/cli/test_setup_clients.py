"""`semlith setup CLIENT` for every client (#45): the printed entry parses in the client's
own format and starts this installation's `semlith mcp` by its absolute path, `--write`
merges it beside the servers already there, a second `--write` changes nothing, `--list`
shows the client, and no config or output ever holds the agent key."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import Result

from semlith.base.home import agent_key
from semlith.setup.launch import locate
from tests.cli_util import run
from tests.setup_util import CASES, HTTP_CLIENTS, PASTED, parse, places  # noqa: F401

EVERY = {**CASES, **PASTED}


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def this_semlith() -> list[str]:
    """The command line of this installation's proxy, as setup should name it."""
    return list(locate().argv)


def test_every_client_is_configured_and_listed() -> None:
    assert len(EVERY) >= 15
    listed = {r["client"] for r in json.loads(ok(run("setup", "--list", "--json")).stdout)}
    assert listed == set(EVERY)
    text = ok(run("setup", "--list")).stdout
    assert all(name in text for name in EVERY)
    assert all(name in ok(run("setup", "--help")).stdout for name in EVERY)


@pytest.mark.parametrize("client", EVERY)
def test_the_printed_entry_parses_and_names_this_semlith_by_absolute_path(
        client: str, places: Path) -> None:  # noqa: F811
    case = EVERY[client]
    result = ok(run("setup", client))
    argv = case.argv(case.entry(parse(result.stdout, case.syntax)))
    assert argv == this_semlith() and os.path.isabs(argv[0])
    assert argv[0] != str(places / "bin" / "semlith")  # not whatever PATH finds first
    if case.user_file:
        assert str(places / case.user_file) in result.stderr
        assert not (places / case.user_file).exists()  # printing writes nothing
    else:
        assert "paste this into Settings | Tools | AI Assistant" in result.stderr


@pytest.mark.parametrize("client", CASES)
def test_write_creates_the_file_then_changes_nothing(client: str, places: Path) -> None:  # noqa: F811
    case, path = CASES[client], places / CASES[client].user_file
    assert "created" in ok(run("setup", client, "--write")).stdout
    assert case.argv(case.entry(parse(path.read_text(), case.syntax))) == this_semlith()
    before = path.read_bytes()
    assert "nothing changed" in ok(run("setup", client, "--write")).stdout
    assert path.read_bytes() == before
    assert not path.with_name(path.name + ".semlith-backup").exists()


@pytest.mark.parametrize("client", CASES)
def test_write_merges_beside_the_servers_already_there(client: str, places: Path) -> None:  # noqa: F811
    case, path = CASES[client], places / CASES[client].user_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(case.existing)
    before = parse(case.existing, case.syntax)
    result = ok(run("setup", client, "--write"))
    assert "added semlith" in result.stdout and "backup" in result.stdout
    text = path.read_text()
    after = parse(text, case.syntax)
    assert case.other(after) == case.other(before)
    assert case.argv(case.entry(after)) == this_semlith()
    assert {k: v for k, v in after.items() if k not in before} == {}  # nothing else added
    assert text.startswith(case.existing.split("\n")[0])  # edited, not rewritten
    assert "mine" not in case.existing or "mine" in text  # comments kept
    assert path.with_name(path.name + ".semlith-backup").read_text() == case.existing
    edited = path.read_bytes()
    assert "nothing changed" in ok(run("setup", client, "--write")).stdout
    assert path.read_bytes() == edited


@pytest.mark.parametrize("client", CASES)
def test_write_replaces_an_older_entry_of_semlith(client: str, places: Path) -> None:  # noqa: F811
    """An entry an older semlith wrote (a bare `semlith`) is replaced, not duplicated."""
    case, path = CASES[client], places / CASES[client].user_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(case.existing)
    ok(run("setup", client, "--write"))
    path.write_text(path.read_text().replace(this_semlith()[0], "semlith"))
    assert case.argv(case.entry(parse(path.read_text(), case.syntax)))[0] == "semlith"
    assert "updated semlith" in ok(run("setup", client, "--write")).stdout
    after = parse(path.read_text(), case.syntax)
    assert case.argv(case.entry(after)) == this_semlith()
    assert case.other(after) == case.other(parse(case.existing, case.syntax))


def test_a_client_without_a_file_refuses_write_and_says_where_to_paste(
        places: Path) -> None:  # noqa: F811
    result = run("setup", "jetbrains", "--write")
    assert result.exit_code == 2 and "paste the entry into Settings" in result.output
    printed = json.loads(ok(run("setup", "jetbrains", "--json")).stdout)
    assert printed["path"] is None and printed["settings"].startswith("Settings | Tools")
    assert not [p for p in places.rglob("*") if p.is_file() and "bin" not in p.parts]


def test_the_agent_key_is_in_no_config_and_no_output(places: Path,  # noqa: F811
                                                     semlith_home: Path) -> None:
    key = agent_key(semlith_home)
    outputs = [run("setup", "--list"), run("setup", "--docs"), run("setup", "--list", "--json")]
    for client in EVERY:
        forms = [[], ["--http"]] if client in HTTP_CLIENTS else [[]]
        for form in forms:
            outputs += [run("setup", client, *form), run("setup", client, *form, "--json")]
            if client in CASES:
                outputs.append(run("setup", client, *form, "--write"))
    assert all(r.exit_code == 0 for r in outputs), [r.output for r in outputs if r.exit_code]
    assert not [r for r in outputs if key in r.stdout or key in r.stderr]
    written = [p for p in places.rglob("*") if p.is_file()]
    assert len(written) > len(CASES)
    assert not [p for p in written if key in p.read_text(errors="replace")]
