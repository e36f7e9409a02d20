"""The same `Library` calls through `LocalLibrary` (in this process, no daemon) and
`RemoteLibrary` (the real daemon over /api) give the same answers; and one question
asked as people and agents ask it (the CLI's `--json`, the MCP tool, a bare /api
request) gives the same hits in the same order.

Two identical homes, each with the same two projects (the sample and a small second
one) indexed by the real model: one is served by a daemon, the other is read here. The
answers' `as_json()` are compared with each side's own folder written as `<tmp>` and
the fields that say who answered (`by_daemon`, `served_by`, `served`, `indexing`,
`watch`), what it did while open (`recovered`, the shards' residency and query
counts) or how long it took (`seconds`) left out.
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from semlith.base.settings import Settings
from semlith.errors import BadTarget, NothingSelected, UnknownStore
from semlith.library import Library
from semlith.local import LocalLibrary
from semlith.remote import RemoteLibrary
from semlith.types import Filters, Scope
from tests.daemon_util import SAMPLE, Daemon, semlith, start_daemon, wait_model

pytestmark = [pytest.mark.slow, pytest.mark.model]
# What this opener did, not what the store holds: the daemon opens its stores once, as
# the writer, and keeps shards resident across queries; the in-process library opens
# them read-only per call, so it repairs nothing and counts no earlier query.
WHO = {"by_daemon", "served_by", "served", "indexing", "watch", "seconds", "recovered",
       "queries", "resident", "resident_bytes", "reads_per_query"}
OTHER = {"notes/deploy.md": "# Deploy\n\nRoll out with blue green deployment and a canary.\n",
         "tool/retry.py": "def retry_with_backoff(call, attempts=3):\n    return call()\n"}


def _projects(base: Path, home: Path) -> None:
    shutil.copytree(SAMPLE, base / "sample", ignore=shutil.ignore_patterns(".semlith"))
    for rel, text in OTHER.items():
        (base / "other" / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / "other" / rel).write_text(text)
    for name in ("sample", "other"):
        done = semlith(home, "index", str(base / name), "--quiet")
        assert done.returncode == 0, done.stderr


class Side:
    def __init__(self, library: Library, base: Path, daemon: Daemon | None = None) -> None:
        self.library, self.base, self.daemon = library, base, daemon

    def near(self, name: str = "sample") -> Scope:
        return Scope(near=(str(self.base / name),))


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Side, Side]]:
    here, there = tmp_path_factory.mktemp("here"), tmp_path_factory.mktemp("there")
    for base in (here, there):
        _projects(base, base / "home")
    daemon = start_daemon(there / "home", "--no-watch")
    wait_model(daemon)
    local = LocalLibrary(Settings.load(env={"SEMLITH_HOME": str(here / "home")}))
    remote = RemoteLibrary.connect(Settings.load(env={"SEMLITH_HOME": str(there / "home")}))
    assert remote is not None
    try:
        yield Side(local, here), Side(remote, there, daemon)
    finally:
        local.close()
        assert daemon.stop() == 0


def _plain(value: Any, base: Path) -> Any:
    if hasattr(value, "as_json"):
        value = value.as_json()
    if isinstance(value, dict):
        return {k: _plain(v, base) for k, v in value.items() if k not in WHO}
    if isinstance(value, list | tuple):
        return [_plain(v, base) for v in value]
    if isinstance(value, str):
        return value.replace(str(base.resolve()), "<tmp>").replace(str(base), "<tmp>")
    return value


def _same(sides: tuple[Side, Side], call: str, *args: Any, scope: str | None = "sample",
          **kwargs: Any) -> Any:
    answers = []
    for side in sides:
        extra = {} if scope is None else {"scope": side.near(scope)}
        answers.append(_plain(getattr(side.library, call)(*args, **kwargs, **extra), side.base))
    assert answers[0] == answers[1], _diff(*answers)
    return answers[0]


def _diff(here: Any, there: Any) -> str:
    lines = [json.dumps(answer, indent=1, sort_keys=True).splitlines() for answer in (here, there)]
    return "\n".join(difflib.unified_diff(*lines, "in process", "daemon", lineterm=""))


def _same_error(sides: tuple[Side, Side], kind: type[Exception], call: str, *args: Any,
                **kwargs: Any) -> None:
    messages = []
    for side in sides:
        with pytest.raises(kind) as raised:
            getattr(side.library, call)(*args, **kwargs)
        messages.append(_plain(str(raised.value), side.base))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("query", ["how are retries scheduled", "RetryPolicy", "zzqqxxyy"])
def test_search(sides: tuple[Side, Side], query: str) -> None:
    answer = _same(sides, "search", query, k=5)
    assert answer["stores"] == ["sample"] and bool(answer["hits"]) == (query != "zzqqxxyy")


def test_search_with_filters_and_every_store(sides: tuple[Side, Side]) -> None:
    _same(sides, "search", "retry", k=5, filters=Filters(exts=("py",)))
    _same(sides, "search", "retry", k=5, filters=Filters(paths=("!docs",)))
    both = _same(sides, "search", "deployment", k=8, scope=None)
    assert set(both["stores"]) == {"sample", "other"}
    for side in sides:
        stores = Scope(("*",))
        assert _plain(side.library.search("retry", k=3, scope=stores), side.base) == \
            _plain(sides[0].library.search("retry", k=3, scope=stores), sides[0].base)


def test_the_errors_keep_their_type(sides: tuple[Side, Side]) -> None:
    for side in sides:
        with pytest.raises(NothingSelected):
            side.library.search("retry", filters=Filters(exts=("zz",)), scope=side.near())
    _same_error(sides, UnknownStore, "files", scope=Scope(("no-such-store",)))
    _same_error(sides, BadTarget, "read", "nowhere.py:1-2", scope=Scope(("sample",)))


def test_symbol_and_read(sides: tuple[Side, Side]) -> None:
    found = _same(sides, "symbol", "RetryPolicy")
    assert found
    first = found[0]
    _same(sides, "read", f"{first['path']}:{first['start_line']}-{first['end_line']}")
    _same(sides, "read", "RetryPolicy")
    assert _same(sides, "outline", first["path"])  # an operation the wire derived


def test_grep_with_context_counts_and_definitions(sides: tuple[Side, Side]) -> None:
    shaped = _same(sides, "grep", "delay", context=3, before=1, after=0)
    assert shaped["matches"] and all(m["after"] == [] for m in shaped["matches"])
    assert any(m["definition"] for m in shaped["matches"])
    counted = _same(sides, "grep", r"self\.\w+", regex=True, count=True)
    assert counted["matches"] == [] and set(counted["counts"]) == set(counted["files"])
    _same(sides, "grep", "Deployment", files_only=True, scope=None)


def test_files_skipped_stats_stores(sides: tuple[Side, Side]) -> None:
    assert _same(sides, "files")
    _same(sides, "skipped")
    _same(sides, "stats")
    _same(sides, "stores", scope=None)


def test_index_a_changed_file_then_forget_it(sides: tuple[Side, Side]) -> None:
    for side in sides:
        (side.base / "sample" / "net" / "congruence.py").write_text(
            "def congruence_marker():\n    return 'the same both ways'\n")
    reports = [_plain(side.library.index([str(side.base / "sample" / "net")]), side.base)
               for side in sides]
    assert reports[0] == reports[1] and reports[0]["indexed"] == 1
    _same(sides, "search", "congruence_marker", k=3)
    removed = [side.library.forget(str(side.base / "sample" / "net" / "congruence.py"))
               for side in sides]
    assert removed == [1, 1]
    _same(sides, "files")


def _mcp_search(daemon: Daemon, arguments: dict[str, Any]) -> str:
    async def call() -> str:
        http = create_mcp_http_client(headers=daemon.headers)
        async with http, Client(streamable_http_client(daemon.url + "/mcp",
                                                       http_client=http)) as client:
            result = await client.call_tool("semlith_search", arguments)
            assert not result.is_error, result.content
            return str(result.content[0].text)
    return anyio.run(call)


LOCATOR = re.compile(r"^(\S+:\d+-\d+)(?: |$)", re.M)  # a hit's first line in excerpts


@pytest.mark.parametrize("query", ["how are retries scheduled", "RetryPolicy"])
def test_one_question_through_the_cli_the_mcp_tool_and_the_api(
        sides: tuple[Side, Side], query: str) -> None:
    here, there = sides
    assert there.daemon is not None
    cli = semlith(here.base / "home", "search", query, "-k", "5", "--json",
                  "--store", "sample")  # no daemon runs for this home: in process
    assert cli.returncode == 0, cli.stderr
    by_cli = _plain(json.loads(cli.stdout), here.base)
    api = httpx.post(there.daemon.url + "/api/search", headers=there.daemon.api, timeout=60,
                     json={"query": query, "k": 5, "scope": {"stores": ["sample"]}})
    assert api.status_code == 200, api.text
    by_api = _plain(api.json()["hits"], there.base)
    assert by_cli == by_api, _diff(by_cli, by_api)
    excerpts = _mcp_search(there.daemon, {"query": query, "k": 5, "stores": ["sample"],
                                          "format": "excerpt", "max_tokens": 20000})
    by_tool = LOCATOR.findall(excerpts)
    assert by_tool == [f"{h['path']}:{h['start_line']}-{h['end_line']}" for h in by_cli]
    assert by_tool, excerpts
