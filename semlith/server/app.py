"""The daemon's HTTP app: MCP at /mcp, the library's JSON API at /api/*, /healthz, and
the portal at / and /portal/* (semlith/server/portal/: its own session token, not a key).

`create_app(settings, fleet, keys, ...)` builds it without a socket, so tests drive it
in process. `/mcp` takes the agent key and serves the agent-facing library (registered
stores only, paths inside served roots); `/api/*` takes the control key and serves the
person's library — the CLI's `RemoteLibrary` — one route per library method. A missing
or wrong key is 401 with a one-line JSON error; a `Host` that is not loopback is 400
and an `Origin` that is not a loopback origin 403 — before any route runs. A body over
MAX_BODY is refused with 413 before it is read (`Content-Length`) or as soon as it
passes the limit (chunked). A 401 carries `WWW-Authenticate: Bearer`; `/.well-known/*`
(where clients probe for OAuth metadata) is 404 without a key.
"""

from __future__ import annotations

import contextlib
import hmac
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import anyio
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from semlith.base.home import portal_key
from semlith.base.settings import Settings
from semlith.base.version import __version__
from semlith.library import Library
from semlith.server.api import api_routes, stop_route
from semlith.server.jsonrpc import BodyTooLarge, JsonRpcGuard, refuse
from semlith.server.mcp import build_mcp
from semlith.server.portal.routes import is_portal_path, portal_routes
from semlith.server.portal.session import Sessions
from semlith.server.sessions import BoundedSessions

# Library calls (MCP tools, /api) run on at most this many worker threads at once. Each
# thread that reads a store holds a SQLite connection (two descriptors) for as long as
# it lives; anyio's default of 40 threads made a burst of calls cost 80 descriptors per
# store, and on 2 cores more than a few concurrent searches only queue on the CPU
# (issue #26; docs/performance.md, "soak").
CALL_THREADS = 8
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
MAX_BODY = 4 << 20
CHALLENGE = ((b"www-authenticate", b'Bearer realm="semlith"'),)  # RFC 6750 section 3


@dataclass(frozen=True, slots=True)
class Keys:
    agent: str  # /mcp
    control: str  # /api


def _host_of(value: str) -> str:
    """'127.0.0.1:7365' -> '127.0.0.1', '[::1]:80' -> '[::1]'."""
    if value.startswith("["):
        return value.split("]", 1)[0] + "]"
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class Guard:
    """ASGI middleware: loopback Host and Origin, the route's bearer key, the body size."""

    def __init__(self, app: ASGIApp, keys: Keys, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.agent = f"Bearer {keys.agent}".encode()
        self.control = f"Bearer {keys.control}".encode()
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
        host = headers.get("host", b"").decode("latin-1")
        if _host_of(host).lower() not in LOOPBACK_HOSTS:
            await refuse(send, 400, "the Host must be a loopback address")
            return
        origin = headers.get("origin")
        if origin is not None and (urlsplit(origin.decode("latin-1")).hostname or "") \
                .lower() not in LOOPBACK_HOSTS | {"::1"}:
            await refuse(send, 403, "requests from web pages of other origins are refused")
            return
        path = scope["path"]
        if path == "/healthz" and scope["method"] == "GET":
            await self.app(scope, receive, send)
            return
        if path.startswith("/.well-known/"):  # OAuth metadata probes: there is none
            await refuse(send, 404, "not found: semlith takes a bearer key, not OAuth "
                         "(`semlith key show` prints the agent key)")
            return
        if is_portal_path(path):  # its own credential: a session token (semlith/server/portal/)
            await self.app(scope, _capped(receive, self.max_body), send)
            return
        expected = self.control if path.startswith("/api/") else self.agent
        if not hmac.compare_digest(headers.get("authorization", b""), expected):
            which = "control key (the CLI reads it itself)" if path.startswith("/api/") \
                else "agent key (`semlith key show` prints it)"
            await refuse(send, 401, f"missing or wrong bearer key: this route takes the {which}",
                         CHALLENGE)
            return
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            await refuse(send, 413, f"the request body is larger than {self.max_body} bytes")
            return
        await self.app(scope, _capped(receive, self.max_body), send)


def _capped(receive: Receive, limit: int) -> Receive:
    """A receive that stops a body (however it is sent) at `limit` bytes."""
    seen = 0

    async def capped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge(limit)
        return message
    return capped


def create_app(settings: Settings, *, agent: Library, person: Library, keys: Keys,
               on_stop: Callable[[], None] | None = None,
               on_startup: Callable[[], None] | None = None,
               sessions: Sessions | None = None) -> ASGIApp:
    """The daemon's ASGI app over its two libraries. `on_stop`: `POST /api/stop`;
    `sessions`: the portal's (by default over SEMLITH_HOME's portal key)."""
    calls = anyio.CapacityLimiter(CALL_THREADS)
    mcp = build_mcp(agent, calls, listed=settings.mcp_tools)
    mcp_sessions = BoundedSessions(  # the SDK's manager, capped (sessions.py)
        mcp._lowlevel_server, cap=settings.mcp_sessions, idle_s=settings.session_idle_s,
        json_response=True,  # our Guard checks Host and Origin:
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with mcp_sessions.run():
            if on_startup is not None:
                on_startup()
            yield

    async def healthz(request: Request) -> Response:
        from starlette.responses import JSONResponse

        return JSONResponse({"ok": True, "version": __version__})

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/mcp", JsonRpcGuard(StreamableHTTPASGIApp(mcp_sessions)),
              methods=["GET", "POST", "DELETE"]),
        stop_route(on_stop),
        *api_routes(person, calls),
        *portal_routes(person, sessions or Sessions(lambda: portal_key(settings.home)),
                       calls),
    ]
    return Guard(Starlette(routes=routes, lifespan=lifespan), keys)

