"""The daemon's JSON API: one route per library method, for `RemoteLibrary` (the CLI).

`POST /api/<method>` takes the method's arguments as a JSON object and answers with the
result's `as_json()`; `GET /api/status` too. Each route parses (with a one-line error
naming the bad field), calls one `Library` method on a worker thread, and formats: no
logic lives here. Errors are 400 `{"error": sentence, "kind": class}`; `index` streams
JSON lines (`{"progress"}`, `{"skip"}`, then `{"report"}` or `{"error"}`).
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from semlith.errors import BadRequest, SemlithError
from semlith.library import Library
from semlith.server.jsonrpc import BodyTooLarge
from semlith.types import Filters, Progress, Scope

PROGRESS_EVERY_S = 0.25  # progress lines sent to the CLI at most this often


class TooLarge(BadRequest):
    """A body past the size limit (answered 413)."""


def _status(exc: Exception) -> int:
    return 413 if isinstance(exc, TooLarge) else 400


def _error(exc: Exception) -> dict[str, str]:
    # a hint travels beside the message, for the CLI to word as its own (errors.py)
    hint = getattr(exc, "hint", None)
    return {"error": str(exc), "kind": type(exc).__name__, **({"hint": hint} if hint else {})}


async def _body(request: Request) -> dict[str, Any]:
    try:
        raw = await request.body()
    except BodyTooLarge as exc:  # a chunked body past the Guard's limit: 413, like /mcp
        raise TooLarge(f"the request body is larger than {exc.args[0]} bytes") from None
    try:
        body = json.loads(raw or b"{}")
    except RecursionError:
        raise BadRequest("the request body is nested too deeply") from None
    except ValueError:
        raise BadRequest("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    return body


def _get(body: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any) -> Any:
    value = body.get(name, default)
    if value is default:
        return value
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise BadRequest(f"{name} must be {_kind_name(kind)}, got {json.dumps(value)[:60]}")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
             dict: "an object", list: "a list"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _strings(body: dict[str, Any], name: str) -> tuple[str, ...]:
    value = body.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadRequest(f"{name} must be a list of strings, got {json.dumps(value)[:60]}")
    return tuple(value)


def _scope(body: dict[str, Any]) -> Scope:
    raw = _get(body, "scope", dict, {})
    return Scope(_strings(raw, "stores"), _strings(raw, "near"))


def _filters(body: dict[str, Any]) -> Filters:
    raw = _get(body, "filters", dict, {})
    return Filters(_strings(raw, "paths"), _strings(raw, "exts"), _strings(raw, "langs"))


def _optional(body: dict[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = body.get(name)
    return None if value is None else _get(body, name, kind, None)


# method -> (call the library with the parsed body, format the result)
Handler = tuple[Callable[[Library, dict[str, Any]], Any], Callable[[Any], Any]]
_ROWS: Callable[[Any], Any] = lambda rows: [r.as_json() for r in rows]  # noqa: E731
HANDLERS: dict[str, Handler] = {
    "search": (lambda lib, b: lib.search(
        _get(b, "query", str, ""), k=_get(b, "k", int, 10), filters=_filters(b),
        scope=_scope(b), image=_optional(b, "image", str)), lambda answer: answer.as_json()),
    "grep": (lambda lib, b: lib.grep(
        _get(b, "pattern", str, ""), regex=_get(b, "regex", bool, False),
        context=_get(b, "context", int, 0), before=_optional(b, "before", int),
        after=_optional(b, "after", int), limit=_get(b, "limit", int, 100),
        files_only=_get(b, "files_only", bool, False), count=_get(b, "count", bool, False),
        filters=_filters(b), scope=_scope(b)),
        lambda matches: matches.as_json()),
    "symbol": (lambda lib, b: lib.symbol(_get(b, "name", str, ""), scope=_scope(b),
                                         limit=_get(b, "limit", int, 50)), _ROWS),
    "read": (lambda lib, b: lib.read(_get(b, "target", str, ""), scope=_scope(b),
                                     max_lines=_get(b, "max_lines", int, 400),
                                     include_image=_get(b, "include_image", bool, False)),
             lambda passage: passage.as_json()),
    "neighbors": (lambda lib, b: lib.neighbors(
        _get(b, "name", str, ""), kinds=_strings(b, "kinds"), filters=_filters(b),
        all_edges=_get(b, "all_edges", bool, False), budget=_get(b, "budget", int, 4000),
        scope=_scope(b)), lambda answer: answer.as_json()),
    "impact": (lambda lib, b: lib.impact(
        _get(b, "name", str, ""), depth=_get(b, "depth", int, 3), filters=_filters(b),
        all_edges=_get(b, "all_edges", bool, False), budget=_get(b, "budget", int, 4000),
        scope=_scope(b)), lambda answer: answer.as_json()),
    "path": (lambda lib, b: lib.path(
        _get(b, "source", str, ""), _get(b, "target", str, ""), filters=_filters(b),
        all_edges=_get(b, "all_edges", bool, False), budget=_get(b, "budget", int, 4000),
        scope=_scope(b)), lambda answer: answer.as_json()),
    "brief": (lambda lib, b: lib.brief(_get(b, "question", str, ""),
                                       budget=_get(b, "budget", int, 2000), scope=_scope(b)),
              lambda answer: answer.as_json()),
    "files": (lambda lib, b: lib.files(scope=_scope(b)), _ROWS),
    "skipped": (lambda lib, b: lib.skipped(scope=_scope(b)), _ROWS),
    "stats": (lambda lib, b: lib.stats(scope=_scope(b)), _ROWS),
    "stores": (lambda lib, b: lib.stores(), _ROWS),
    "forget": (lambda lib, b: lib.forget(_get(b, "path", str, ""),
                                         store=_optional(b, "store", str)), lambda n: n),
    "watch": (lambda lib, b: lib.watch(_strings(b, "paths"), store=_optional(b, "store", str)),
              lambda watched: watched.as_json()),
    "status": (lambda lib, b: lib.status(), lambda status: status.as_json()),
    "runs": (lambda lib, b: lib.runs(), _ROWS),
    "stop_run": (lambda lib, b: lib.stop_run(_get(b, "store", str, "")), lambda ok: ok),
    "agents": (lambda lib, b: lib.agents(), lambda agents: agents.as_json()),
}


def api_routes(library: Library, limiter: anyio.CapacityLimiter | None = None
               ) -> list[Route]:
    """One route per library method; calls run on `limiter`'s worker threads."""
    routes = [Route(f"/api/{name}", library_route(library, name, *handler, limiter),
                    methods=["POST"]) for name, handler in HANDLERS.items()]
    routes.append(Route("/api/status", library_route(library, "status", *HANDLERS["status"],
                                                     limiter), methods=["GET"]))
    routes.append(Route("/api/index", _index_route(library), methods=["POST"]))
    return routes


def library_route(library: Library, name: str,
                  call: Callable[[Library, dict[str, Any]], Any], format: Callable[[Any], Any],
                  limiter: anyio.CapacityLimiter | None) -> Callable[[Request], Any]:
    """The endpoint of one library method: parse the body, call, format (the portal's
    routes are these too, behind its session check)."""
    async def endpoint(request: Request) -> Response:
        try:
            body = await _body(request) if request.method == "POST" else {}
            result = await anyio.to_thread.run_sync(lambda: call(library, body),
                                                    limiter=limiter)
        except (SemlithError, ValueError, TypeError, PermissionError) as exc:
            return JSONResponse(_error(exc), status_code=_status(exc))
        return JSONResponse(format(result))
    endpoint.__name__ = f"api_{name}"
    return endpoint


def _index_route(library: Library) -> Callable[[Request], Any]:
    async def index(request: Request) -> Response:
        try:
            body = await _body(request)
            paths = _strings(body, "paths")
            store = _optional(body, "store", str)
            model = _optional(body, "model", str)
            backend = _optional(body, "backend", str)
            budget = _optional(body, "time_budget", (int, float))
            skips = bool(_get(body, "skips", bool, False))
            allow_system = bool(_get(body, "allow_system", bool, False))
            verify = bool(_get(body, "verify", bool, False))
        except BadRequest as exc:
            return JSONResponse(_error(exc), status_code=_status(exc))
        lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        last = [0.0]

        def progress(p: Progress) -> None:
            now = time.monotonic()
            if p.phase not in ("read", "embed") or now - last[0] >= PROGRESS_EVERY_S:
                last[0] = now
                lines.put({"progress": p.as_json()})

        def run() -> None:
            try:
                report = library.index(
                    paths, store=store, model=model, backend=backend, time_budget=budget,
                    on_progress=progress, allow_system=allow_system, verify=verify,
                    on_skip=(lambda *skip: lines.put({"skip": list(skip)})) if skips else None)
                lines.put({"report": report.as_json()})
            except (SemlithError, ValueError, TypeError, PermissionError, OSError) as exc:
                lines.put(_error(exc))
            finally:
                lines.put(None)

        # The run goes on if the CLI goes away (Ctrl-C): it finishes or checkpoints as a
        # watcher batch would, and the store stays consistent either way.
        threading.Thread(target=run, name="semlith-api-index", daemon=True).start()

        async def stream() -> AsyncIterator[bytes]:
            while (item := await anyio.to_thread.run_sync(lines.get)) is not None:
                yield (json.dumps(item) + "\n").encode()
        return StreamingResponse(stream(), media_type="application/x-ndjson")
    return index


def stop_route(on_stop: Callable[[], None] | None) -> Route:
    async def stop(request: Request) -> Response:
        if on_stop is not None:
            on_stop()
        return JSONResponse({"stopping": True})
    return Route("/api/stop", stop, methods=["POST"])
