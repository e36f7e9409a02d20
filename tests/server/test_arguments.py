"""The MCP argument rule (#23), on every tool of the real app, in process.

Unknown arguments are refused by name, `store` is an alias of `stores`, one string is a
one-element list, numbers out of range are clamped with a note, and every failure is
one sentence built from the schema: no pydantic text, no URL.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.server_util import Served, call_tool, served  # noqa: F401 - the module fixture

ROOT = Path(__file__).resolve().parents[2]


def _tools(served: Served) -> list[dict[str, Any]]:  # noqa: F811
    answer = served.client.post("/mcp", headers=served.session, json={
        "jsonrpc": "2.0", "id": 11, "method": "tools/list"})
    tools: list[dict[str, Any]] = answer.json()["result"]["tools"]
    return tools


def _one_sentence(text: str) -> None:
    assert "\n" not in text, text
    for leak in ("pydantic", "http", "validation error", "Error executing", "input_value"):
        assert leak not in text, text


def test_every_tool_refuses_an_unknown_argument_naming_the_accepted_ones(
        served: Served) -> None:  # noqa: F811
    tools = _tools(served)
    assert len(tools) >= 6
    for tool in tools:
        text, failed = call_tool(served, tool["name"], {"bogus": 1})
        assert failed, (tool["name"], text)
        accepted = ", ".join(tool["inputSchema"]["properties"])
        assert text.startswith(f"{tool['name']} has no argument 'bogus'; it takes: "
                               f"{accepted}"), text
        _one_sentence(text)
    # the tools tools/list leaves out by default (#22) answer by the same rule
    for name in ("semlith_stats", "semlith_files", "semlith_path", "semlith_index",
                 "semlith_forget"):
        text, failed = call_tool(served, name, {"bogus": 1})
        assert failed and text.startswith(f"{name} has no argument 'bogus'; it takes: "), text
        _one_sentence(text)


def test_every_tool_takes_stores_and_its_alias_store(served: Served) -> None:  # noqa: F811
    for tool in _tools(served):
        assert "stores" in tool["inputSchema"]["properties"], tool["name"]
        assert "store" not in tool["inputSchema"]["properties"], tool["name"]
        assert "store (= stores)" in call_tool(served, tool["name"], {"bogus": 1})[0]


@pytest.mark.parametrize(("name", "arguments"), [
    ("semlith_search", {"query": "retry", "store": "nope"}),
    ("semlith_search", {"query": "retry", "stores": "nope"}),
    ("semlith_files", {"store": "nope"}),
    ("semlith_stats", {"store": ["nope"]}),
    ("semlith_symbol", {"name": "RetryPolicy", "store": "nope"}),
    ("semlith_read", {"target": "net/retry.py:1-3", "store": "nope"}),
])
def test_an_unknown_store_is_refused_whichever_name_it_comes_under(
        served: Served, name: str, arguments: dict[str, Any]) -> None:  # noqa: F811
    text, failed = call_tool(served, name, arguments)
    assert failed and text == 'unknown store nope; stores: proj (or "*" for all)', text


@pytest.mark.parametrize("name", ["semlith_index", "semlith_forget"])
def test_the_writing_tools_take_one_store_under_either_name(served: Served,  # noqa: F811
                                                            name: str) -> None:
    arguments = {"path": "nothing-here.py"} if name == "semlith_forget" else {}
    text, failed = call_tool(served, name, {**arguments, "store": "nope"})
    assert failed and "nope" in text and "proj" in text, text
    text, failed = call_tool(served, name, {**arguments, "stores": ["proj", "other"]})
    assert failed and text == "name one store to write to, not proj, other", text
    text, failed = call_tool(served, name, {**arguments, "store": "proj", "stores": ["proj"]})
    assert failed and text == f"{name}: give stores or store, not both", text


def test_store_alias_scopes_the_answer(served: Served) -> None:  # noqa: F811
    text, failed = call_tool(served, "semlith_files", {"store": "proj"})
    assert not failed and text.startswith("[proj] "), text


@pytest.mark.parametrize(("arguments", "check"), [
    ({"path": "!net/*"}, lambda text: "net/" not in text),
    ({"path": "net/*"}, lambda text: all(line.startswith(("net/", "  ")) or not line
                                         for line in text.splitlines())),
    ({"ext": "py"}, lambda text: ".py" in text and ".go" not in text and ".md" not in text),
    ({"lang": "python"}, lambda text: ".py" in text and ".rs" not in text),
])
def test_one_string_where_a_list_is_expected_is_a_one_element_list(
        served: Served, arguments: dict[str, Any], check: Any) -> None:  # noqa: F811
    text, failed = call_tool(served, "semlith_search", {"query": "retry backoff token",
                                                         "k": 20, **arguments})
    assert not failed and check(text), text


@pytest.mark.parametrize(("k", "used", "note"), [
    (500, 50, "note: k 500 is above 50, the most it takes; used 50"),
    (0, 1, "note: k 0 is below 1, the least it takes; used 1"),
])
def test_k_out_of_range_is_clamped_with_a_note(served: Served, k: int, used: int,  # noqa: F811
                                               note: str) -> None:
    text, failed = call_tool(served, "semlith_search", {"query": "retry", "k": k,
                                                         "format": "excerpt"})
    assert not failed and text.splitlines()[-1] == note, text
    within, _ = call_tool(served, "semlith_search", {"query": "retry", "k": used,
                                                      "format": "excerpt"})
    assert text == within + "\n" + note


@pytest.mark.parametrize(("name", "arguments", "expected"), [
    ("semlith_search", {"query": "retry", "k": "ten"},
     'semlith_search: k must be an integer from 1 to 50, not "ten"'),
    ("semlith_search", {"query": "retry", "path": 5},
     "semlith_search: path must be a list of strings (or one), not 5"),
    ("semlith_search", {"query": "retry", "format": "all"},
     'semlith_search: format must be one of "locate", "excerpt", "files", not "all"'),
    ("semlith_read", {"target": "x", "include_image": "maybe"},
     'semlith_read: include_image must be true or false, not "maybe"'),
    ("semlith_symbol", {}, "semlith_symbol needs the argument name (a string)"),
    ("semlith_forget", {}, "semlith_forget needs the argument path (a string)"),
])
def test_a_bad_value_is_one_sentence_from_the_schema(served: Served, name: str,  # noqa: F811
                                                     arguments: dict[str, Any],
                                                     expected: str) -> None:
    text, failed = call_tool(served, name, arguments)
    assert failed and text == expected, text
    _one_sentence(text)


def test_tools_list_fits_in_a_thousand_tokens(served: Served) -> None:  # noqa: F811
    size = len(json.dumps(_tools(served)).encode())
    assert size / 4 <= 1000, size


def test_the_tool_table_in_clients_md_is_generated_from_the_schemas() -> None:
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    assert spec is not None and spec.loader is not None
    gen_docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_docs)
    current = (ROOT / "docs" / "clients.md").read_text()
    assert gen_docs.tool_table() in current, "stale: run python scripts/gen_docs.py"
    assert gen_docs.clients(current) == current, "stale: run python scripts/gen_docs.py"
