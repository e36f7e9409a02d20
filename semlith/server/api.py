"""The daemon's JSON API: one route per library method, for `RemoteLibrary` (the CLI).

`POST /api/<method>` takes the method's arguments as a JSON object and answers with the
result's `as_json()`; `GET /api/status` too. The routes are derived from the `Library`
protocol (semlith/wire.py): each parses the body by the method's signature (with a
one-line error naming the bad field), calls the method on a worker thread, and formats:
no logic lives here. Errors are 400 `{"error": sentence, "kind": class}`; `index` streams
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

from semlith import wire
from semlith.errors import BadRequest, SemlithError
from semlith.library import Library
from semlith.server.jsonrpc import BodyTooLarge
from semlith.types import Progress

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


def api_routes(library: Library, limiter: anyio.CapacityLimiter | None = None
               ) -> list[Route]:
    """One route per library method (semlith/wire.py); calls run on `limiter`'s worker
    threads. `index` streams; `status` answers GET too."""
    routes = [Route(f"/api/{name}", library_route(library, name, limiter), methods=["POST"])
              for name in wire.operations() if name != "index"]
    routes.append(Route("/api/status", library_route(library, "status", limiter),
                        methods=["GET"]))
    routes.append(Route("/api/index", _index_route(library), methods=["POST"]))
    return routes


def library_route(library: Library, name: str,
                  limiter: anyio.CapacityLimiter | None) -> Callable[[Request], Any]:
    """The endpoint of one library method: parse the body (by the protocol's signature),
    call, format (the portal's routes are these too, behind its session check)."""
    op, method = wire.operations()[name], getattr(library, name)

    async def endpoint(request: Request) -> Response:
        try:
            body = await _body(request) if request.method == "POST" else {}
            kwargs = wire.arguments(op, body)
            result = await anyio.to_thread.run_sync(lambda: method(**kwargs),
                                                    limiter=limiter)
        except (SemlithError, ValueError, TypeError, PermissionError) as exc:
            return JSONResponse(_error(exc), status_code=_status(exc))
        return JSONResponse(wire.answer(result))
    endpoint.__name__ = f"api_{name}"
    return endpoint


def _index_route(library: Library) -> Callable[[Request], Any]:
    async def index(request: Request) -> Response:
        try:
            body = await _body(request)
            kwargs = wire.arguments(wire.operations()["index"], body)
            skips = body.get("skips") is True  # stream the skips too (the caller asked)
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
                    **kwargs, on_progress=progress,
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
