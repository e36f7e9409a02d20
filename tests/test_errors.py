"""Domain errors keep their class (and their hint) across the daemon hop
(semlith/remote.py), and each adapter words a hint for its own reader."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from semlith import errors
from semlith.remote import _error
from tests.cli_util import run, tree  # noqa: F401
from tests.server_util import Served, call_tool, served  # noqa: F401

DOMAIN = [cls for _, cls in inspect.getmembers(errors, inspect.isclass)
          if issubclass(cls, Exception) and cls.__module__ == errors.__name__]


@pytest.mark.parametrize("cls", DOMAIN, ids=lambda c: c.__name__)
def test_every_domain_error_is_raised_again_as_itself(cls: type[Exception]) -> None:
    rebuilt = _error(cls.__name__, "why")
    assert type(rebuilt) is cls and str(rebuilt) == "why"


def test_a_kind_semlith_does_not_know_is_a_daemon_error() -> None:
    assert type(_error("KeyError", "odd")) is errors.DaemonError
    assert type(_error("__class__", "odd")) is errors.DaemonError
    assert type(_error("ValueError", "bad k")) is ValueError


# -- the next step, in each reader's words (#45) ---------------------------------------

def test_a_hint_crosses_the_daemon_hop() -> None:
    assert _error("BadTarget", "why", "list-files").hint is errors.Hint.LIST_FILES
    assert _error("BadTarget", "why", "").hint is None
    assert _error("BadTarget", "why", "no-such-hint").hint is None
    assert type(_error("BadRequest", "why", "find")) is errors.BadRequest


def test_each_adapter_words_every_hint_in_its_own_terms() -> None:
    from semlith.cli.base import HINTS as CLI
    from semlith.server.registry import HINTS as MCP

    assert set(CLI) == set(MCP) == set(errors.Hint)
    assert not [w for w in CLI.values() if "semlith_" in w]
    assert not [w for w in MCP.values() if "--" in w]  # an agent passes arguments, not flags
    exc = errors.BadTarget("'x' is not an indexed file", hint=errors.Hint.LIST_FILES)
    assert errors.worded(exc, CLI) == "'x' is not an indexed file; `semlith files` lists them"
    assert errors.worded(ValueError("plain"), CLI) == "plain"


def test_the_cli_names_commands(tree: Path) -> None:  # noqa: F811
    result = run("read", "missing.py")
    assert result.exit_code == 1
    assert "`semlith files` lists files, `semlith search` finds code" in result.stderr
    assert "semlith_" not in result.stderr
    forgot = run("forget", "missing.py")
    assert "`semlith files` lists them" in forgot.stderr and "semlith_" not in forgot.stderr


def test_mcp_tools_name_tools(served: Served) -> None:  # noqa: F811
    text, failed = call_tool(served, "semlith_read", {"target": "missing.py"})
    assert failed and "semlith_files lists files, semlith_search finds code" in text
    assert "semlith files" not in text
    text, failed = call_tool(served, "semlith_forget", {"path": "missing.py"})
    assert failed and "semlith_files lists them" in text and "semlith files" not in text
    answer = served.client.post("/api/read", headers=served.api, json={"target": "missing.py"})
    assert answer.status_code == 400 and answer.json()["hint"] == "find"
    assert "semlith_files" not in answer.json()["error"]
