"""The daemon's HTTP app: MCP at /mcp, a small JSON API for the CLI, /healthz.

`create_app(settings, fleet, ...)` builds it without a socket, so tests drive it in
process. Every request except `GET /healthz` must carry `Authorization: Bearer <agent
key>` (401 with an empty body otherwise); a `Host` that is not loopback gets 400 and an
`Origin` that is not a loopback origin 403 — before any route runs.
"""

from __future__ import annotations

import contextlib
import hmac
import json
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlsplit

import anyio
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from semlith import __version__
from semlith.errors import SemlithError
from semlith.search import Filters
from semlith.server.fleet import Fleet
from semlith.server.tools import build_mcp
from semlith.settings import Settings

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
MAX_BODY = 4 << 20


def _host_of(value: str) -> str:
    """'127.0.0.1:7365' -> '127.0.0.1', '[::1]:80' -> '[::1]'."""
    if value.startswith("["):
        return value.split("]", 1)[0] + "]"
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class Guard:
    """ASGI middleware: loopback Host and Origin, then the bearer key."""

    def __init__(self, app: ASGIApp, key: str) -> None:
        self.app = app
        self.expected = f"Bearer {key}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
        host = headers.get("host", b"").decode("latin-1")
        if _host_of(host).lower() not in LOOPBACK_HOSTS:
            await _empty(send, 400)
            return
        origin = headers.get("origin")
        if origin is not None and (urlsplit(origin.decode("latin-1")).hostname or "") \
                .lower() not in LOOPBACK_HOSTS | {"::1"}:
            await _empty(send, 403)
            return
        if scope["path"] == "/healthz" and scope["method"] == "GET":
            await self.app(scope, receive, send)
            return
        given = headers.get("authorization", b"")
        if not hmac.compare_digest(given, self.expected):
            await _empty(send, 401)
            return
        await self.app(scope, receive, send)


async def _empty(send: Send, status: int) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})


def create_app(settings: Settings, fleet: Fleet, key: str, *,
               on_stop: Callable[[], None] | None = None,
               on_startup: Callable[[], None] | None = None) -> ASGIApp:
    """The daemon's ASGI app. `on_stop` is called by `POST /api/stop`."""
    mcp = build_mcp(fleet)
    mcp.streamable_http_app(  # creates mcp.session_manager; our Guard checks Host/Origin
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with mcp.session_manager.run():
            if on_startup is not None:
                on_startup()
            yield

    async def healthz(request: Request) -> Response:
        return JSONResponse({"ok": True, "version": __version__})

    async def status(request: Request) -> Response:
        return JSONResponse({"version": __version__, **fleet.status()})

    async def search(request: Request) -> Response:
        body = await _json(request)
        query, k, store = body.get("query", ""), body.get("k", 10), body.get("store")
        if not isinstance(query, str):
            raise ValueError(f"query must be a string, got {query!r}")
        if not isinstance(k, int) or isinstance(k, bool):
            raise ValueError(f"k must be an integer, got {k!r}")
        if store is not None and not isinstance(store, str):
            raise ValueError(f"store must be a string, got {store!r}")
        filters = Filters(_strings(body, "path"), _strings(body, "ext"), _strings(body, "lang"))
        folders = _strings(body, "folders")
        hits = await anyio.to_thread.run_sync(
            lambda: fleet.search(query, k, filters, store, folders))
        return JSONResponse([h.as_json() for h in hits])

    async def index(request: Request) -> Response:
        body = await _json(request)
        folder = body.get("folder")
        store = fleet.by_folder(str(folder)).name if folder else body.get("store")
        paths = _strings(body, "paths")
        report = await anyio.to_thread.run_sync(lambda: fleet.index(store, paths))
        return JSONResponse({"summary": report.summary(), "complete": report.complete,
                             "truncated": report.truncated})

    async def stop(request: Request) -> Response:
        if on_stop is not None:
            on_stop()
        return JSONResponse({"stopping": True})

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/mcp", StreamableHTTPASGIApp(mcp.session_manager),
              methods=["GET", "POST", "DELETE"]),
        Route("/api/status", _handled(status), methods=["GET"]),
        Route("/api/search", _handled(search), methods=["POST"]),
        Route("/api/index", _handled(index), methods=["POST"]),
        Route("/api/stop", _handled(stop), methods=["POST"]),
    ]
    return Guard(Starlette(routes=routes, lifespan=lifespan), key)


async def _json(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise ValueError("request body too large")
    try:
        body = json.loads(raw or b"{}")
    except RecursionError:
        raise ValueError("the request body is nested too deeply") from None
    if not isinstance(body, dict):
        raise ValueError("the request body must be a JSON object")
    return body


def _strings(body: dict[str, Any], name: str) -> tuple[str, ...]:
    """A list-of-strings field of a request body; ValueError naming it otherwise."""
    value = body.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{name} must be a list of strings, got {value!r}")
    return tuple(value)


def _handled(endpoint: Callable[[Request], Any]) -> Callable[[Request], Any]:
    """Domain errors -> 400 {"error": one line}; never a traceback."""
    async def run(request: Request) -> Response:
        try:
            response: Response = await endpoint(request)
            return response
        except (SemlithError, ValueError, TypeError, PermissionError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
    return run
