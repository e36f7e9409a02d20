"""The CLI's output conventions (issue #23): colour as ripgrep gives it, a readable 0-1
relevance, a long form for every short option, and examples in every `--help`."""

from __future__ import annotations

import json
import re

import click
import pytest

from semlith.cli import main
from semlith.cli.base import COMMAND_MODULES
from semlith.cli.colour import wanted
from semlith.ranking.relevance import calibrated, relevances
from tests.cli_util import run, tree  # noqa: F401 - the indexed sample

ESC = "\x1b["


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


# -- colour ---------------------------------------------------------------------------

@pytest.mark.usefixtures("tree")
def test_colour_always_paints_paths_lines_matches_and_definitions() -> None:
    coloured = run("search", "--exact", "delay", "--color", "always").output
    plain = run("search", "--exact", "delay").output
    assert ESC not in plain and _plain(coloured) == plain
    first = next(line for line in coloured.splitlines() if ":\x1b[32m15" in line)
    assert first.startswith("\x1b[35mnet/retry.py\x1b[0m:")  # path magenta, line green
    assert "\x1b[31m\x1b[1mdelay\x1b[0m" in first  # the match bold red, as ripgrep
    assert "=\x1b[33mmethod RetryPolicy.delay\x1b[0m" in coloured  # the definition yellow
    counted = run("search", "--exact", "delay", "-c", "--color", "always").output
    assert counted.startswith("\x1b[35mnet/retry.py\x1b[0m:")
    hits = run("search", "RetryPolicy", "-k", "2", "--color", "always").output
    assert hits.startswith("\x1b[35mnet/retry.py\x1b[0m:\x1b[32m")
    assert re.search(r"\(\x1b\[33m[01]\.\d\d\x1b\[0m\)", hits)  # the relevance
    assert _plain(hits) == run("search", "RetryPolicy", "-k", "2").output


@pytest.mark.usefixtures("tree")
def test_colour_never_in_json_nor_into_a_pipe_nor_with_no_color(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for args in (("--exact", "delay"), ("RetryPolicy",)):
        out = run("search", *args, "--json", "--color", "always").output
        assert ESC not in out and json.loads(out)
        assert ESC not in run("search", *args, "--color", "never").output
        assert ESC not in run("search", *args).output  # auto, and stdout is not a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    assert ESC not in run("search", "--exact", "delay", "--color", "auto").output
    assert ESC in run("search", "--exact", "delay", "--color", "always").output  # asked
    assert run("search", "x", "--color", "sometimes").exit_code == 2


def test_auto_colours_a_terminal_unless_no_color_or_a_dumb_one() -> None:
    assert wanted("auto", tty=True, environ={})
    assert wanted("auto", tty=True, environ={"NO_COLOR": ""})  # empty: not set
    assert not wanted("auto", tty=True, environ={"NO_COLOR": "1"})
    assert not wanted("auto", tty=True, environ={"TERM": "dumb"})
    assert not wanted("auto", tty=False, environ={})
    assert wanted("always", tty=False, environ={"NO_COLOR": "1"})
    assert not wanted("never", tty=True, environ={})


# -- relevance --------------------------------------------------------------------------

def test_relevance_maps_the_floor_to_one_half_and_falls_with_rank() -> None:
    assert calibrated(0.40, 0.40) == 0.5 and calibrated(1.0, 0.40) == 1.0
    assert calibrated(0.0, 0.40) == 0.0 and calibrated(-0.3, 0.40) == 0.0
    assert calibrated(0.7, 0.40) == pytest.approx(0.75)
    assert calibrated(0.3, None) == pytest.approx(0.3)  # no floor: the cosine itself
    assert relevances([0.04, 0.02, 0.01], 0.7, 0.40) == [0.75, 0.38, 0.19]
    assert relevances([0.04, 0.02], None, 0.40) == [None, None]  # no dense list
    assert relevances([], 0.9, None) == []


@pytest.mark.usefixtures("tree")
def test_search_shows_relevance_and_json_keeps_its_score() -> None:
    out = run("search", "retry backoff", "-k", "5").output
    shown = [float(x) for x in re.findall(r"^\S+.*  \(([01]\.\d\d)\)$", out, re.M)]
    assert len(shown) == 5 and shown == sorted(shown, reverse=True)
    assert all(0 <= r <= 1 for r in shown)
    hits = json.loads(run("search", "retry backoff", "-k", "5", "--json").output)
    assert [h["relevance"] for h in hits] == shown
    assert all(isinstance(h["score"], float) and h["score"] > 0 for h in hits)
    assert not re.search(r"\(0\.0\d\d\d\)", out)  # no raw fusion value any more


# -- options and help -------------------------------------------------------------------

def test_each_command_is_in_the_module_the_table_names() -> None:
    ctx = click.Context(main)
    where = {name: main.get_command(ctx, name).callback.__module__  # type: ignore[union-attr]
             for name in main.list_commands(ctx)}
    # The table names each command it holds rightly; a new command may be missing from
    # it (issue #44: an operation is four files) and still runs, its modules all imported.
    assert {name: where[name] for name in COMMAND_MODULES} == {
        name: f"semlith.cli.{module}" for name, module in COMMAND_MODULES.items()}
    assert {"search", "read", "index", "serve", "mcp"} <= set(COMMAND_MODULES)


def test_a_command_the_table_does_not_name_still_runs() -> None:
    import subprocess
    import sys

    script = ("from semlith.cli import base\n"
              "del base.COMMAND_MODULES['outline']\n"
              "base.main(['outline', '--help'], prog_name='semlith')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Usage: semlith outline" in done.stdout


def _commands(group: click.Group = main, prefix: str = "") -> list[tuple[str, click.Command]]:
    """Every command under `group` by its full name (`key show`), groups too."""
    ctx = click.Context(group)
    out: list[tuple[str, click.Command]] = []
    for name in sorted(group.list_commands(ctx)):
        command = group.get_command(ctx, name)
        assert command is not None
        out.append((prefix + name, command))
        if isinstance(command, click.Group):
            out += _commands(command, f"{prefix}{name} ")
    return out


def test_every_short_option_has_a_long_one_and_the_graph_agrees_on_all_edges() -> None:
    for name, command in [("", main), *_commands()]:
        for param in command.params:
            if isinstance(param, click.Option):
                names = param.opts + param.secondary_opts
                assert any(n.startswith("--") for n in names), (name, names)
    graph = dict(_commands())
    for name in ("neighbors", "impact", "path"):  # one name for one concept (#23)
        option = next(p for p in graph[name].params if p.name == "all_edges")
        assert set(option.opts) == {"--all-edges", "--all"}, name


def test_every_help_has_examples_that_run_this_command() -> None:
    for name in ["", *(name for name, _ in _commands())]:
        out = run(*name.split(), "--help").output
        assert "Examples:" in out, name
        examples = out.split("Examples:", 1)[1].split("\n\n")[0]
        lines = [line.strip() for line in examples.splitlines() if line.strip()]
        assert lines and all(line.startswith(f"semlith {name}".rstrip()) or
                             line.startswith("#") for line in lines), (name, lines)
