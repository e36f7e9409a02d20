"""The daemon's HTTP app in process (no socket): malformed input, auth, and path safety.

A real store indexed with the deterministic `HashEmbedder`, a real `Fleet`, the real
`create_app`, driven by Starlette's TestClient with the lifespan running (it runs the MCP
session manager). Whatever a client sends, the answer is a JSON-RPC error, an `isError`
tool result or a 4xx, never a 5xx, and the app keeps answering.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from semlith.server.app import MAX_BODY
from tests.server_util import (  # noqa: F401 - the module fixture
    ACCEPT,
    SECRET,
    Served,
    call_tool,
    modern_headers,
    modern_meta,
    served,
)

READ_ONLY_TOOLS = ["semlith_search", "semlith_read", "semlith_files", "semlith_stats",
                   "semlith_symbol"]
FUZZ = settings(max_examples=200, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def _assert_alive(served: Served) -> None:  # noqa: F811
    """The app still answers: a ping in the session and a stateless tools/call."""
    ping = served.client.post("/mcp", headers=served.session,
                              json={"jsonrpc": "2.0", "id": 99, "method": "ping"})
    assert ping.status_code == 200 and ping.json() == {"jsonrpc": "2.0", "id": 99, "result": {}}
    modern = served.client.post("/mcp", headers={**served.auth, **modern_headers(
        "tools/call", "semlith_search")}, json={
        "jsonrpc": "2.0", "id": 100, "method": "tools/call", "params": {
            "name": "semlith_search", "arguments": {"query": "RetryPolicy backoff", "k": 3},
            "_meta": modern_meta()}})
    assert modern.status_code == 200, modern.text
    result = modern.json()["result"]
    assert not result["isError"] and result["content"][0]["text"].startswith("net/retry.py")


def _assert_not_a_server_error(answer: httpx.Response) -> None:
    assert answer.status_code < 500, (answer.status_code, answer.text[:500])
    if answer.status_code >= 400 and answer.content:
        body = answer.json()
        assert body["jsonrpc"] == "2.0" and isinstance(body["error"]["code"], int)


def test_exact_mode_shows_k_matching_lines_and_says_how_many_more(
        served: Served) -> None:  # noqa: F811
    every, failed = call_tool(served, "semlith_search", {"query": "self", "mode": "exact",
                                                         "k": 50})
    assert not failed
    shown = [line for line in every.splitlines() if ":" in line and "=" not in line[:3]]
    text, failed = call_tool(served, "semlith_search", {"query": "self", "mode": "exact",
                                                        "k": 2})
    assert not failed
    matching = [line for line in text.splitlines()
                if line.count(":") >= 2 and ":self" not in line and "=" not in line.split(":")[0]]
    assert 0 < len(matching) <= 2 and len(shown) > 2, text
    assert "more" in text.splitlines()[-1], text


def test_the_outline_tool_maps_a_file_within_its_budget(served: Served) -> None:  # noqa: F811
    text, failed = call_tool(served, "semlith_outline", {"target": "net/retry.py"})
    assert not failed and text.splitlines()[0] == "7-18 class RetryPolicy · class RetryPolicy:"
    text, failed = call_tool(served, "semlith_outline", {"target": "net/retry.py",
                                                         "max_tokens": 100})
    assert not failed and len(text) <= 4 * 100 + 80
    text, failed = call_tool(served, "semlith_outline", {"target": "net/nope.py"})
    assert failed and "not an indexed file" in text


# -- malformed MCP input --------------------------------------------------------------

@pytest.mark.parametrize("body", [
    b"{not json",
    b"\xff\xfe\x00",
    b"",
    b"[1, 2, 3]",
    b'"a string"',
    b"null",
    b'{"jsonrpc": "2.0", "id": 1}',
    b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}',
    b"[" * 50_000 + b"]" * 50_000,
], ids=["invalid-json", "invalid-utf8", "empty", "list-of-numbers", "string", "null",
        "no-method", "wrong-version", "deeply-nested"])
@pytest.mark.parametrize("mode", ["session", "modern"])
def test_malformed_json_rpc_gets_a_json_rpc_error(served: Served, body: bytes,  # noqa: F811
                                                  mode: str) -> None:
    headers = (served.session if mode == "session"
               else {**served.auth, **modern_headers("ping")})
    answer = served.client.post("/mcp", content=body, headers=headers)
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.text)
    assert answer.json()["error"]["code"] in {-32700, -32600, -32602}
    _assert_alive(served)


def test_unknown_method_is_method_not_found(served: Served) -> None:  # noqa: F811
    answer = served.client.post("/mcp", headers=served.session, json={
        "jsonrpc": "2.0", "id": 3, "method": "no/such/method"})
    assert answer.status_code < 500
    assert answer.json()["error"]["code"] == -32601
    modern = served.client.post("/mcp",
                                headers={**served.auth, **modern_headers("no/such/method")},
                                json={"jsonrpc": "2.0", "id": 4, "method": "no/such/method",
                                      "params": {"_meta": modern_meta()}})
    assert modern.status_code < 500
    assert modern.json()["error"]["code"] == -32601
    _assert_alive(served)


@pytest.mark.parametrize(("name", "arguments", "expected"), [
    ("no_such_tool", {}, "Unknown tool: no_such_tool"),
    ("semlith_search", {"query": "retry", "k": "ten"},
     'semlith_search: k must be an integer from 1 to 50, not "ten"'),
    ("semlith_search", {"query": 5}, "semlith_search: query must be a string, not 5"),
    ("semlith_search", {"query": "retry", "format": "everything"},
     'format must be one of "locate", "excerpt", "files", not "everything"'),
    ("semlith_search", {}, "semlith_search needs the argument query (a string)"),
    ("semlith_search", {"query": "   "}, "the query is empty"),
    ("semlith_search", {"query": "retry", "stores": ["nope"]},
     'unknown store nope; stores: proj (or "*" for all)'),
    ("semlith_read", {}, "target"),
    ("semlith_read", {"target": "net/retry.py:9-3"}, "bad line range"),
], ids=["unknown-tool", "k-string", "query-int", "bad-format", "missing-query",
        "blank-query", "unknown-store", "missing-target", "backwards-range"])
def test_bad_tool_calls_are_tool_errors(served: Served, name: str, arguments: Any,  # noqa: F811
                                        expected: str) -> None:
    text, failed = call_tool(served, name, arguments)
    assert failed and expected in text
    assert "Traceback" not in text
    _assert_alive(served)


def test_arguments_that_are_not_an_object(served: Served) -> None:  # noqa: F811
    answer = served.client.post("/mcp", headers=served.session, json={
        "jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "semlith_search", "arguments": ["retry"]}})
    _assert_not_a_server_error(answer)
    assert "error" in answer.json() or answer.json()["result"]["isError"]
    _assert_alive(served)


def test_a_huge_body_is_refused(served: Served) -> None:  # noqa: F811
    huge = json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
        "name": "semlith_search", "arguments": {"query": "x" * (MAX_BODY + 1)}}})
    for headers in (served.session,
                    {**served.auth, **modern_headers("tools/call", "semlith_search")}):
        answer = served.client.post("/mcp", content=huge, headers=headers)
        assert answer.status_code == 413
    api_answer = served.client.post("/api/search", content=huge, headers=served.api)
    assert api_answer.status_code == 413 and "larger than" in api_answer.json()["error"]
    _assert_alive(served)


def test_a_huge_chunked_body_is_413_everywhere(served: Served) -> None:  # noqa: F811
    """Without Content-Length the limit is met while reading: /api answered 400 (#25)."""
    def chunks() -> Iterator[bytes]:
        yield b'{"query": "'
        for _ in range(MAX_BODY // (1 << 16) + 1):
            yield b"x" * (1 << 16)
        yield b'"}'

    for path, headers in (("/api/search", served.api), ("/api/index", served.api),
                          ("/mcp", served.session)):
        answer = served.client.post(path, content=chunks(), headers=headers)
        assert answer.status_code == 413, (path, answer.text)
        assert "too large" in answer.text or "larger than" in answer.text
    _assert_alive(served)


def test_read_of_the_stores_own_file_is_refused(served: Served) -> None:  # noqa: F811
    for target in (".semlith/store.db", "store.db", "retrypolicy"):
        text, failed = call_tool(served, "semlith_read", {"target": target})
        assert failed and "neither an indexed file nor a symbol" in text, (target, text)
    text, failed = call_tool(served, "semlith_read", {"target": "RetryPolicy"})
    assert not failed and "net/retry.py" in text


def test_a_forget_of_star_says_nothing_matched(served: Served) -> None:  # noqa: F811
    text, failed = call_tool(served, "semlith_forget", {"path": "*"})
    assert failed and "'*' matches no indexed file of store 'proj'" in text
    files, _ = call_tool(served, "semlith_files", {})
    assert files.startswith("[proj] 9 files")


# -- fuzzing --------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)
ARGUMENT_NAMES = ["query", "k", "path", "ext", "lang", "store", "format", "max_tokens",
                  "target", "name", "skipped", "limit"]
ARGUMENT_VALUES = (st.text(max_size=20) | st.integers(-5, 60) | st.booleans()
                   | st.lists(st.text(max_size=6), max_size=3) | JSON_VALUES)
TOOL_CALLS = st.fixed_dictionaries({
    "name": st.sampled_from([*READ_ONLY_TOOLS, "no_such_tool"]),
    "arguments": st.dictionaries(st.sampled_from(ARGUMENT_NAMES), ARGUMENT_VALUES, max_size=4)
    | JSON_VALUES})
METHODS = ["initialize", "ping", "tools/list", "tools/call", "resources/list",
           "prompts/list", "logging/setLevel", "completion/complete",
           "notifications/initialized", "notifications/cancelled"]
TOOL_REQUESTS = st.fixed_dictionaries({
    "jsonrpc": st.just("2.0"), "id": st.integers(0, 1000), "method": st.just("tools/call"),
    "params": TOOL_CALLS})
REQUESTS = st.fixed_dictionaries({
    "jsonrpc": st.just("2.0"), "id": st.integers(0, 1000), "method": st.sampled_from(METHODS),
    "params": st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=3)})
MALFORMED_REQUESTS = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0") | JSON_VALUES,
     "method": st.sampled_from(METHODS) | st.text(max_size=12),
     "params": TOOL_CALLS | JSON_VALUES},
    optional={"id": st.integers() | st.text(max_size=6) | JSON_VALUES})
MESSAGES = TOOL_REQUESTS | REQUESTS | MALFORMED_REQUESTS | JSON_VALUES


def _fuzz_headers(served: Served, mode: str, message: Any) -> dict[str, str]:  # noqa: F811
    if mode == "session":
        return served.session
    if mode == "legacy":
        return served.auth
    method = message.get("method") if isinstance(message, dict) else None
    params = message.get("params") if isinstance(message, dict) else None
    name = params.get("name") if isinstance(params, dict) else None
    return {**served.auth, **modern_headers(method if isinstance(method, str) else "tools/list",
                                     name if isinstance(name, str) else None)}


def _with_modern_meta(message: Any) -> Any:
    if isinstance(message, dict) and isinstance(message.get("params"), dict):
        return {**message, "params": {**message["params"], "_meta": modern_meta()}}
    return message


MODES = ["legacy", "session", "modern"]


@pytest.mark.parametrize("mode", MODES)
@FUZZ
@given(body=st.binary(max_size=300))
def test_fuzz_mcp_with_bytes(served: Served, mode: str, body: bytes) -> None:  # noqa: F811
    answer = served.client.post("/mcp", content=body,
                                headers=_fuzz_headers(served, mode, None))
    _assert_not_a_server_error(answer)


@pytest.mark.parametrize("mode", MODES)
@FUZZ
@given(message=MESSAGES)
def test_fuzz_mcp_with_json(served: Served, mode: str, message: Any) -> None:  # noqa: F811
    if mode == "modern":
        message = _with_modern_meta(message)
    answer = served.client.post("/mcp", content=json.dumps(message),
                                headers=_fuzz_headers(served, mode, message))
    _assert_not_a_server_error(answer)


def test_the_app_answers_after_the_fuzzing(served: Served) -> None:  # noqa: F811
    _assert_alive(served)


FILTERS = st.fixed_dictionaries({}, optional={
    "paths": st.lists(st.text(max_size=8), max_size=3) | JSON_VALUES,
    "exts": st.lists(st.text(max_size=4), max_size=3) | JSON_VALUES,
    "langs": st.lists(st.text(max_size=4), max_size=3) | JSON_VALUES})
SCOPES = st.fixed_dictionaries({}, optional={
    "stores": st.lists(st.sampled_from(["proj", "*", "nope"]) | st.text(max_size=8),
                       max_size=2) | JSON_VALUES,
    "near": st.lists(st.text(max_size=8), max_size=2) | JSON_VALUES})
SEARCH_BODIES = st.fixed_dictionaries({}, optional={
    "query": st.text(max_size=20) | JSON_VALUES,
    "k": st.integers() | JSON_VALUES,
    "filters": FILTERS | JSON_VALUES,
    "scope": SCOPES | JSON_VALUES,
})


def _assert_search_answer(answer: httpx.Response) -> None:
    assert answer.status_code in {200, 400}, (answer.status_code, answer.text[:500])
    body = answer.json()
    if answer.status_code == 400:
        assert set(body) - {"hint"} == {"error", "kind"} and isinstance(body["error"], str)
        assert body["error"] and "\n" not in body["error"]
    else:
        assert isinstance(body["hits"], list)


@FUZZ
@given(body=st.binary(max_size=300)
       | st.builds(json.dumps, SEARCH_BODIES | JSON_VALUES).map(str.encode))
def test_fuzz_api_search(served: Served, body: bytes) -> None:  # noqa: F811
    _assert_search_answer(served.client.post("/api/search", content=body,
                                             headers=served.api))


@pytest.mark.parametrize("body", [
    b"{bad json",
    b"\xff\xfe",
    b"[1, 2]",
    b'"query"',
    b'{"query": "retry", "k": "ten"}',
    b'{"query": "retry", "k": 1e400}',
    b'{"query": "retry", "k": 100000000000000000000000}',
    b'{"query": "retry", "filters": {"langs": [1]}}',
    b'{"query": "retry", "filters": {"paths": 5}}',
    b'{"query": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
], ids=["invalid-json", "invalid-utf8", "list", "string", "k-string", "k-infinite",
        "k-too-big", "lang-not-strings", "path-not-a-list", "deeply-nested"])
def test_api_search_refuses_malformed_bodies(served: Served, body: bytes) -> None:  # noqa: F811
    answer = served.client.post("/api/search", content=body, headers=served.api)
    assert answer.status_code == 400, (answer.status_code, answer.text[:300])
    assert isinstance(answer.json()["error"], str)
    _assert_alive(served)


# -- auth, Host and Origin ------------------------------------------------------------

ROUTES = [("POST", "/mcp"), ("GET", "/api/status"), ("POST", "/api/search")]


def _one_line_error(answer: httpx.Response) -> str:
    body = answer.json()
    assert set(body) == {"error"} and "\n" not in body["error"], body
    return str(body["error"])


@pytest.mark.parametrize(("method", "path"), ROUTES)
@pytest.mark.parametrize("authorization", [None, "Bearer wrong", "Basic abc", "Bearer "])
def test_a_missing_or_wrong_key_is_401_with_a_one_line_json_error(
        served: Served, method: str, path: str, authorization: str | None) -> None:  # noqa: F811
    headers = {**ACCEPT} if authorization is None else {**ACCEPT,
                                                        "Authorization": authorization}
    answer = served.client.request(method, path, headers=headers,
                                   content=b'{"query": "retry"}')
    assert answer.status_code == 401
    assert "bearer key" in _one_line_error(answer)


def test_each_route_takes_only_its_own_key(served: Served) -> None:  # noqa: F811
    """Agents hold the agent key; the API indexes any folder, so it takes the control key."""
    assert served.client.get("/api/status", headers=served.auth).status_code == 401
    agent_search = served.client.post("/api/index", headers=served.auth,
                                      json={"paths": ["/etc"]})
    assert agent_search.status_code == 401
    mcp = served.client.post("/mcp", headers={**served.api},
                             json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert mcp.status_code == 401


def test_the_right_key_is_let_through_on_every_route(served: Served) -> None:  # noqa: F811
    assert served.client.get("/api/status", headers=served.api).json()["stores"]["proj"]
    hits = served.client.post("/api/search", headers=served.api,
                              json={"query": "RetryPolicy", "k": 2}).json()["hits"]
    assert hits[0]["path"] == "net/retry.py"


def test_healthz_needs_no_key(served: Served) -> None:  # noqa: F811
    answer = served.client.get("/healthz")
    assert answer.status_code == 200 and answer.json()["ok"] is True


@pytest.mark.parametrize("host", ["evil.example", "evil.example:7365",
                                  "127.0.0.1.evil.example:7365", "localhost.evil.example",
                                  "0.0.0.0:7365", ""])
def test_a_host_that_is_not_loopback_is_400(served: Served, host: str) -> None:  # noqa: F811
    for method, path in [*ROUTES, ("GET", "/healthz")]:
        answer = served.client.request(method, path, headers={**served.auth, "Host": host})
        assert answer.status_code == 400 and "loopback" in _one_line_error(answer)


@pytest.mark.parametrize("host", ["127.0.0.1:7365", "localhost", "LOCALHOST:80", "[::1]:7365"])
def test_loopback_hosts_are_accepted(served: Served, host: str) -> None:  # noqa: F811
    answer = served.client.get("/api/status", headers={**served.api, "Host": host})
    assert answer.status_code == 200


@pytest.mark.parametrize("origin", ["https://evil.example", "http://127.0.0.1.evil.example",
                                    "null", "http://localhost.evil.example:3000", "file://"])
def test_an_origin_that_is_not_loopback_is_403(served: Served, origin: str) -> None:  # noqa: F811
    for method, path in [*ROUTES, ("GET", "/healthz")]:
        answer = served.client.request(method, path, headers={**served.auth, "Origin": origin})
        assert answer.status_code == 403 and "origin" in _one_line_error(answer)


@pytest.mark.parametrize("origin", ["http://localhost:3000", "http://127.0.0.1:5173",
                                    "http://[::1]:8080"])
def test_loopback_origins_are_accepted(served: Served, origin: str) -> None:  # noqa: F811
    answer = served.client.get("/api/status", headers={**served.api, "Origin": origin})
    assert answer.status_code == 200
    ping = served.client.post("/mcp", headers={**served.session, "Origin": origin},
                              json={"jsonrpc": "2.0", "id": 8, "method": "ping"})
    assert ping.status_code == 200 and ping.json()["result"] == {}


# -- agent paths stay inside the served root ------------------------------------------

@pytest.mark.parametrize("target", [
    "../../etc/passwd", "/etc/passwd:1-2", "/etc/passwd", "../secret.txt", "../secret.txt:1",
    "net/../../secret.txt", "leak.txt", "leak.txt:1-1", "vendor/secret.py", "vendor/secret.py:1",
])
def test_read_refuses_paths_outside_the_root(served: Served, target: str) -> None:  # noqa: F811
    text, failed = call_tool(served, "semlith_read", {"target": target})
    expected = "is not inside an indexed root" if target.startswith("/") \
        else "neither an indexed file nor a symbol"
    assert failed and expected in text
    assert SECRET not in text and "root:" not in text


def test_the_walker_skipped_the_symlinks(served: Served) -> None:  # noqa: F811
    files, failed = call_tool(served, "semlith_files", {})
    assert not failed and "net/retry.py" in files.splitlines()
    assert "leak.txt" not in files and "vendor/" not in files


def test_read_still_reads_indexed_files(served: Served) -> None:  # noqa: F811
    text, failed = call_tool(served, "semlith_read", {"target": "net/retry.py:7-8"})
    assert not failed and text.splitlines()[1].endswith("class RetryPolicy:")


@pytest.mark.parametrize("paths", [["../outside"], ["/tmp"], ["/etc/passwd"], ["leak.txt"],
                                   ["vendor"], ["net", "../outside"]])
def test_index_refuses_paths_outside_the_root(served: Served, paths: list[str]) -> None:  # noqa: F811
    text, failed = call_tool(served, "semlith_index", {"paths": paths})
    assert failed and "is not inside a served root" in text
    assert SECRET not in text
    assert "leak.txt" not in call_tool(served, "semlith_files", {})[0]


@pytest.mark.parametrize("path", ["..", "../outside", "/", "leak.txt", "vendor"])
def test_forget_refuses_paths_outside_the_root(served: Served, path: str) -> None:  # noqa: F811
    text, failed = call_tool(served, "semlith_forget", {"path": path})
    assert failed and "is not inside a served root" in text
    files, _ = call_tool(served, "semlith_files", {})
    assert files.startswith("[proj] 9 files")


# -- the person's API indexes what a person named (issue #26) --------------------------

def _api_index(served: Served, body: dict[str, Any]) -> list[dict[str, Any]]:  # noqa: F811
    answer = served.client.post("/api/index", headers=served.api, json=body)
    if answer.status_code != 200:
        return [answer.json()]
    return [json.loads(line) for line in answer.text.splitlines()]


@pytest.mark.parametrize("paths", [["/etc"], ["/"], ["/usr"], ["/proc/self"]])
def test_api_index_refuses_a_system_folder(served: Served, paths: list[str]) -> None:  # noqa: F811
    lines = _api_index(served, {"paths": paths})
    assert lines[-1]["kind"] == "RefusedFolder" and "--allow-system" in lines[-1]["error"]
    assert not (Path(paths[0]) / ".semlith").exists()
    stores = served.client.post("/api/stores", headers=served.api, json={}).json()
    assert [s["name"] for s in stores] == ["proj"]


@pytest.mark.parametrize("path", ["proj", "./proj", "{root}/../..", "{root}/net/../.."])
def test_api_index_refuses_relative_and_climbing_paths(served: Served, path: str) -> None:  # noqa: F811
    root = _served_root(served)
    lines = _api_index(served, {"paths": [path.format(root=root)]})
    assert lines[-1]["kind"] == "RefusedFolder", lines
    assert not (root.parent.parent / ".semlith").exists()


def _served_root(served: Served) -> Path:  # noqa: F811
    stores = served.client.post("/api/stores", headers=served.api, json={}).json()
    return Path(next(s["root"] for s in stores if s["name"] == "proj"))


# -- JSON-RPC ids the SDK would mishandle ----------------------------------------------

@pytest.mark.parametrize("ident", [None, 1.5, [1], {"a": 1}, True])
def test_a_request_id_that_is_not_a_string_or_integer_is_an_invalid_request(
        served: Served, ident: Any) -> None:  # noqa: F811
    answer = served.client.post("/mcp", headers=served.session, json={
        "jsonrpc": "2.0", "id": ident, "method": "ping"})
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == -32600 and answer.json()["id"] is None
    _assert_alive(served)


def test_a_duplicate_in_flight_id_is_refused_at_once(served: Served) -> None:  # noqa: F811
    guard = _guard_of(served)
    key = (served.session["Mcp-Session-Id"], "4242")
    guard._in_flight.add(key)  # as while a request with id 4242 runs
    try:
        second = served.client.post("/mcp", headers=served.session, json={
            "jsonrpc": "2.0", "id": 4242, "method": "ping"})
    finally:
        guard._in_flight.discard(key)
    assert second.status_code == 400 and second.json()["id"] == 4242
    assert "still in flight" in second.json()["error"]["message"]
    again = served.client.post("/mcp", headers=served.session, json={
        "jsonrpc": "2.0", "id": 4242, "method": "ping"})
    assert again.json() == {"jsonrpc": "2.0", "id": 4242, "result": {}}  # free once answered


@pytest.mark.parametrize(("running", "sent"), [(5151, "5151"), ("5151", 5151)])
def test_an_id_equal_as_text_to_one_in_flight_is_refused(served: Served, running: Any,  # noqa: F811
                                                         sent: Any) -> None:
    """The SDK keys answers by str(id): 1 and "1" in flight at once left the first one
    unanswered (6 of 6) and shutdown then took 13 s."""
    guard = _guard_of(served)
    key = (served.session["Mcp-Session-Id"], str(running))
    guard._in_flight.add(key)
    try:
        second = served.client.post("/mcp", headers=served.session, json={
            "jsonrpc": "2.0", "id": sent, "method": "ping"})
    finally:
        guard._in_flight.discard(key)
    assert second.status_code == 400 and second.json()["id"] == sent
    assert "still in flight" in second.json()["error"]["message"]


def test_ids_one_and_text_one_sent_together_are_both_answered(served: Served) -> None:  # noqa: F811
    from concurrent.futures import ThreadPoolExecutor

    def call(ident: Any) -> Any:
        return served.client.post("/mcp", headers=served.session, json={
            "jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": {
                "name": "semlith_search", "arguments": {"query": "retry backoff", "k": 3}}})
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(call, [31, "31"] * 8))
    for ident, answer in zip([31, "31"] * 8, answers, strict=True):
        reply = answer.json()
        assert reply["id"] == ident
        assert answer.status_code in (200, 400)
    assert not _guard_of(served)._in_flight
    _assert_alive(served)


def test_concurrent_requests_sharing_an_id_are_each_answered(served: Served) -> None:  # noqa: F811
    """The SDK left one of two in-flight requests with one id unanswered (6 in 5,000
    fuzzed messages) and shutdown then hung on it: every request gets an answer now."""
    from concurrent.futures import ThreadPoolExecutor

    body = {"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {
        "name": "semlith_search", "arguments": {"query": "retry backoff", "k": 3}}}
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: served.client.post(
            "/mcp", headers=served.session, json=body), range(24)))
    for answer in answers:
        reply = answer.json()
        assert reply["id"] == 77
        if answer.status_code == 400:
            assert reply["error"]["code"] == -32600
        else:
            assert answer.status_code == 200 and not reply["result"]["isError"]
    assert any(a.status_code == 200 for a in answers)
    assert not _guard_of(served)._in_flight
    _assert_alive(served)


def _guard_of(served: Served) -> Any:  # noqa: F811
    """The JsonRpcGuard wrapping /mcp in the served app."""
    from semlith.server.jsonrpc import JsonRpcGuard

    app = served.client.app
    starlette = app.app  # type: ignore[attr-defined]
    for route in starlette.routes:
        if getattr(route, "path", "") == "/mcp":
            assert isinstance(route.endpoint, JsonRpcGuard)
            return route.endpoint
    raise AssertionError("no /mcp route")
