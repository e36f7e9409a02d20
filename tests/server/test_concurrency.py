"""The real daemon under concurrent load: many clients searching at once, and a ping
answered while a long index run holds the store's writer lock."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.daemon_util import Daemon, served_sample

pytestmark = [pytest.mark.slow, pytest.mark.model]
MODERN = "2026-07-28"
CLIENTS = 20
SEARCHES_PER_CLIENT = 50
# A mix of queries, each with the file the real model ranks first in fixtures/sample.
QUERIES = {
    "retry backoff": "net/retry.py",
    "session token signature": "auth/tokens.go",
    "password hashing": "auth/password.rs",
    "RetryPolicy": "net/retry.py",
    "how are routes matched to handlers": "web/router.js",
    "schema migrations": "storage/migrations.sql",
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Daemon, Path]]:
    # Not watching: the watcher would index the files the long index run is given first.
    yield from served_sample(tmp_path_factory.mktemp("concurrency"), "--no-watch")


def _tool_call(daemon: Daemon, name: str, arguments: dict[str, Any],
               request_id: int) -> tuple[dict[str, str], dict[str, Any]]:
    """Headers and body of a stateless 2026-07-28 tools/call."""
    headers = {**daemon.headers, "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": name}
    body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
        "name": name, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}}}}
    return headers, body


def _searches_answered(daemon: Daemon) -> int:
    status = httpx.get(daemon.url + "/api/status", headers=daemon.api, timeout=10)
    return int(status.json()["searches"])


async def _search_client(daemon: Daemon, client_no: int, failures: list[str]) -> int:
    """One client on its own connection pool, searching in sequence; returns answers."""
    queries = list(QUERIES.items())
    answered = 0
    async with httpx.AsyncClient(base_url=daemon.url, timeout=60) as http:
        for n in range(SEARCHES_PER_CLIENT):
            query, expected = queries[(client_no + n) % len(queries)]
            request_id = client_no * 1000 + n
            headers, body = _tool_call(daemon, "semlith_search", {"query": query, "k": 5},
                                       request_id)
            answer = await http.post("/mcp", json=body, headers=headers)
            if answer.status_code != 200:
                failures.append(f"{query!r}: HTTP {answer.status_code} {answer.text[:200]}")
                continue
            message = answer.json()
            result = message.get("result") or {}
            text = "".join(c.get("text", "") for c in result.get("content", []))
            if message.get("id") != request_id or result.get("isError") is not False \
                    or text.splitlines()[:1] != [expected]:
                failures.append(f"{query!r}: {str(message)[:300]}")
                continue
            answered += 1
    return answered


def test_many_clients_search_at_once(served: tuple[Daemon, Path]) -> None:
    daemon, _ = served
    before = _searches_answered(daemon)
    failures: list[str] = []
    counts: list[int] = []

    async def run() -> None:
        async def one(client_no: int) -> None:
            counts.append(await _search_client(daemon, client_no, failures))

        with anyio.fail_after(240):
            async with anyio.create_task_group() as group:
                for client_no in range(CLIENTS):
                    group.start_soon(one, client_no)

    anyio.run(run)
    assert failures == []
    assert counts == [SEARCHES_PER_CLIENT] * CLIENTS
    assert _searches_answered(daemon) - before == CLIENTS * SEARCHES_PER_CLIENT


def _write_generated_python(folder: Path, files: int = 40, functions: int = 6) -> None:
    """Files of distinct generated functions (an index run of them takes seconds)."""
    folder.mkdir()
    for i in range(files):
        lines = []
        for j in range(functions):
            lines += [f"def ledger_entry_{i}_{j}(book, amount={j}):",
                      f'    """Post amount {j} to ledger book {i} and return the balance."""',
                      f"    book.setdefault('account_{i}_{j}', []).append(amount)",
                      f"    return sum(book['account_{i}_{j}']) * {i + 1}", ""]
        (folder / f"ledger_{i}.py").write_text("\n".join(lines))


async def _wait_until_indexing(daemon: Daemon, http: httpx.AsyncClient,
                               finished: list[str]) -> None:
    """Poll /api/status until a store is being indexed (or the index call has ended)."""
    with anyio.fail_after(60):
        while not finished:
            status = (await http.get(daemon.url + "/api/status", headers=daemon.api)).json()
            if any(s["indexing"] for s in status["stores"].values()):
                return
            await anyio.sleep(0.02)


def test_ping_is_answered_while_a_long_index_runs(served: tuple[Daemon, Path]) -> None:
    daemon, root = served
    _write_generated_python(root / "ledger")
    finished: list[str] = []
    indexed: dict[str, Any] = {}

    async def index() -> None:
        headers, body = _tool_call(daemon, "semlith_index",
                                   {"paths": ["ledger"], "time_budget": 600}, 1)
        async with httpx.AsyncClient(timeout=600) as http:
            answer = await http.post(daemon.url + "/mcp", json=body, headers=headers)
        indexed.update(answer.json()["result"])
        finished.append("index")

    async def run() -> None:
        http = create_mcp_http_client(headers=daemon.headers)
        async with http, httpx.AsyncClient(timeout=10) as poll, streamable_http_client(
                daemon.url + "/mcp", http_client=http) as (read, write), \
                ClientSession(read, write) as session:
            init = await session.initialize()  # opened before the index starts
            assert init.protocol_version == "2025-11-25"  # a legacy (stateful) session
            async with anyio.create_task_group() as group:
                group.start_soon(index)
                await _wait_until_indexing(daemon, poll, finished)
                assert finished == [], "the index run ended before the ping could be sent"
                with anyio.fail_after(10):
                    await session.send_ping()
                finished.append("ping")

    anyio.run(run)
    assert finished == ["ping", "index"]
    assert indexed["isError"] is False
    assert indexed["content"][0]["text"].startswith("40 indexed"), indexed
