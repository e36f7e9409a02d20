"""The portal's HTTP face: the page at `/`, its assets, the token exchange, and
`/portal/api/<method>`, one route per library method (the same endpoints as `/api`).

The daemon's Guard (semlith/server/app.py) has already refused a Host that is not
loopback and a foreign Origin. Here, every answer carries CSP `default-src 'self'` (the
assets hold no inline script or style) and no CORS header; a token in a query string is
refused (it belongs in the fragment, which is never sent); every POST must be JSON with
`Sec-Fetch-Site: same-origin` (a cross-site form or fetch is refused before it is
read); `/portal/api/*` needs a session token in the X-Semlith-Session header.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from semlith import wire
from semlith.errors import SemlithError
from semlith.library import Library
from semlith.server.api import library_route
from semlith.server.portal.session import SESSION_SECONDS, BadToken, Sessions
from semlith.types import Scope

log = logging.getLogger("semlith.server.portal")
CSP = "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}
SESSION_HEADER = "x-semlith-session"
# The library methods the pages call; `index` (start a run) is the portal's own route.
METHODS = ("stats", "stores", "files", "skipped", "search", "grep", "read", "forget", "runs",
           "stop_run", "agents", "status")
# The code graph's, served once the library has them (issue #22): the Graph page asks
# `/portal/methods` and says what it will show until then.
GRAPH_METHODS = ("neighbors", "impact", "path")
# The page's scripts, in the order index.html runs them: one global scope, one concept
# each; portal.js, last, starts the page.
SCRIPTS = ("dom.js", "daemon.js", "pages.js", "search.js", "picture.js", "graph.js",
           "portal.js")
ASSETS = {"index.html": "text/html; charset=utf-8",
          **{name: "text/javascript; charset=utf-8" for name in SCRIPTS},
          "portal.css": "text/css; charset=utf-8", "favicon.svg": "image/svg+xml"}
Endpoint = Callable[[Request], Awaitable[Response]]


def is_portal_path(path: str) -> bool:
    """The paths the portal answers (with its own credential, not a bearer key)."""
    return path == "/" or path.startswith("/portal/")


def _asset(name: str) -> bytes:
    return (resources.files("semlith.server.portal") / "static" / name).read_bytes()


def _secure(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    return response


def _refuse(status: int, message: str) -> Response:
    return _secure(JSONResponse({"error": message}, status_code=status))


def _refusal(request: Request) -> Response | None:
    """Why a request is refused before any route runs, or None."""
    if "token" in request.query_params:
        return _refuse(400, "a portal token is never accepted in a query string (it would "
                       "be sent and logged); open the link `semlith portal` prints, whose "
                       "token is in the fragment (#token=...)")
    if request.method == "POST":
        if request.headers.get("sec-fetch-site") != "same-origin":
            return _refuse(403, "the portal takes changes only from its own page "
                           "(Sec-Fetch-Site: same-origin)")
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return _refuse(415, "the portal takes only JSON requests (application/json)")
    return None


def _guarded(endpoint: Endpoint, sessions: Sessions | None) -> Endpoint:
    """`endpoint` behind the refusals, and behind a valid session when `sessions`."""
    async def guarded(request: Request) -> Response:
        refused = _refusal(request)
        if refused is not None:
            return refused
        if sessions is not None and not sessions.valid(request.headers.get(
                SESSION_HEADER, "")):
            return _refuse(401, "no valid portal session; run `semlith portal` for a link")
        return _secure(await endpoint(request))
    guarded.__name__ = getattr(endpoint, "__name__", "portal")
    return guarded


def portal_routes(library: Library, sessions: Sessions,
                  limiter: anyio.CapacityLimiter | None = None) -> list[BaseRoute]:
    """The portal's routes over `library` (the person's: the CLI's and /api's)."""
    async def page(request: Request) -> Response:
        return Response(_asset("index.html"), media_type=ASSETS["index.html"])

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS or name == "index.html":
            return JSONResponse({"error": f"no portal asset {name!r}"}, status_code=404)
        return Response(_asset(name), media_type=ASSETS[name])

    async def exchange(request: Request) -> Response:
        try:
            token = _token(await request.json())
            return JSONResponse({"session": sessions.exchange(token),
                                 "expires_in": SESSION_SECONDS})
        except (BadToken, ValueError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=401)

    async def renew(request: Request) -> Response:
        try:
            fresh = sessions.renew(request.headers.get(SESSION_HEADER, ""))
        except BadToken as exc:
            return JSONResponse({"error": str(exc)}, status_code=401)
        return JSONResponse({"session": fresh, "expires_in": SESSION_SECONDS})

    routes: list[BaseRoute] = [
        Route("/", _guarded(page, None), methods=["GET"]),
        Route("/portal/static/{name}", _guarded(asset, None), methods=["GET"]),
        Route("/portal/session", _guarded(exchange, None), methods=["POST"]),
        Route("/portal/renew", _guarded(renew, None), methods=["POST"]),
        Route("/portal/api/index", _guarded(_start_route(library), sessions),
              methods=["POST"]),
    ]
    served = [*METHODS, *(m for m in GRAPH_METHODS if m in wire.operations())]

    async def methods(request: Request) -> Response:
        return JSONResponse(served)

    routes.append(Route("/portal/methods", _guarded(methods, sessions), methods=["POST"]))
    routes += [Route(f"/portal/api/{name}", _guarded(library_route(
        library, name, limiter), sessions), methods=["POST"]) for name in served]
    return routes


def _token(body: Any) -> str:
    if not isinstance(body, dict) or not isinstance(body.get("token"), str):
        raise ValueError('the body must be {"token": "..."}')
    return str(body["token"])


def _start_route(library: Library) -> Endpoint:
    """`POST /portal/api/index {"store": name}`: start a run of that store's whole root
    and answer at once (202); the Runs page follows it through `runs`."""
    async def start(request: Request) -> Response:
        try:
            body = json.loads(await request.body() or b"{}")
            store = body.get("store") if isinstance(body, dict) else None
            if not isinstance(store, str) or not store:
                raise ValueError('the body must be {"store": "name"}')
            names = await anyio.to_thread.run_sync(
                lambda: {s.name for s in library.stats(scope=Scope(("*",)))})
            if store not in names:
                raise ValueError(f"no store {store!r}; the stores are: "
                                 + (", ".join(sorted(names)) or "none"))
            if any(r.store == store and r.state == "running" for r in library.runs()):
                return JSONResponse({"error": f"store {store!r} is being indexed already"},
                                    status_code=409)
        except (SemlithError, ValueError) as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        threading.Thread(target=_run, args=(library, store), daemon=True,
                         name="semlith-portal-index").start()
        return JSONResponse({"started": store}, status_code=202)
    return start


def _run(library: Library, store: str) -> None:
    try:
        library.index((), store=store)
    except (SemlithError, ValueError, OSError) as exc:  # on the board as "failed" too
        log.warning("the portal's index run of %s failed: %s", store, exc)
