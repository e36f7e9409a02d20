"""Protocol manners (#23): only the capabilities semlith has are advertised, a 401 says
how to authenticate, and OAuth metadata probes get a 404. The real app, in process."""

from __future__ import annotations

from typing import Any

import pytest

from tests.server_util import (  # noqa: F401 - the module fixture
    ACCEPT,
    Served,
    modern_headers,
    modern_meta,
    served,
)


def _initialize(served: Served, version: str) -> dict[str, Any]:  # noqa: F811
    answer = served.client.post("/mcp", headers=served.auth, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}})
    assert answer.status_code == 200, answer.text
    capabilities: dict[str, Any] = answer.json()["result"]["capabilities"]
    return capabilities


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2024-11-05"])
def test_initialize_advertises_tools_only(served: Served, version: str) -> None:  # noqa: F811
    capabilities = _initialize(served, version)
    assert "tools" in capabilities
    assert "prompts" not in capabilities and "resources" not in capabilities, capabilities


def test_discover_advertises_tools_only(served: Served) -> None:  # noqa: F811
    answer = served.client.post("/mcp",
                                headers={**served.auth, **modern_headers("server/discover")},
                                json={"jsonrpc": "2.0", "id": 2, "method": "server/discover",
                                      "params": {"_meta": modern_meta()}})
    assert answer.status_code == 200, answer.text
    capabilities = answer.json()["result"]["capabilities"]
    assert "tools" in capabilities
    assert "prompts" not in capabilities and "resources" not in capabilities, capabilities


@pytest.mark.parametrize("method", ["prompts/list", "resources/list"])
def test_unadvertised_methods_are_method_not_found(served: Served,  # noqa: F811
                                                   method: str) -> None:
    answer = served.client.post("/mcp", headers=served.session,
                                json={"jsonrpc": "2.0", "id": 3, "method": method})
    assert answer.json()["error"]["code"] == -32601


@pytest.mark.parametrize("path", ["/mcp", "/api/status"])
@pytest.mark.parametrize("key", [None, "wrong"])
def test_a_401_carries_a_bearer_challenge(served: Served, path: str,  # noqa: F811
                                          key: str | None) -> None:
    headers = {**ACCEPT, **({"Authorization": f"Bearer {key}"} if key else {})}
    answer = served.client.post(path, headers=headers, json={})
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].split()[0] == "Bearer"


@pytest.mark.parametrize("path", ["/.well-known/oauth-protected-resource",
                                  "/.well-known/oauth-protected-resource/mcp",
                                  "/.well-known/oauth-authorization-server",
                                  "/.well-known/openid-configuration"])
def test_oauth_metadata_probes_are_404_not_401(served: Served, path: str) -> None:  # noqa: F811
    answer = served.client.get(path)
    assert answer.status_code == 404, answer.text
    assert "bearer key" in answer.json()["error"]
    assert served.client.get(path, headers=served.auth).status_code == 404
