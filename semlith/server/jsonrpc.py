"""JSON-RPC hygiene in front of the MCP SDK's transport, and one-line JSON refusals.

The SDK trusts the ids it is sent. Two requests in flight with the same id in one
session left one of them unanswered forever (6 of 5,000 fuzzed messages) and the
shutdown waiting ~13 s for it; a request whose id is null, a float, a list or an
object got a bare 202 as if it were a notification. `JsonRpcGuard` reads each POST
body (bounded by the Guard), answers those cases itself with a JSON-RPC error, and
passes everything else through unchanged.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

INVALID_REQUEST = -32600


class BodyTooLarge(Exception):
    """A body passed the Guard's limit while it was read (a chunked upload)."""


async def refuse(send: Send, status: int, message: str,
                 headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    """A response whose body is one line of JSON: {"error": message}."""
    await _json(send, status, {"error": message}, headers)


async def _json(send: Send, status: int, body: Any,
                headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(data)).encode()), *headers]})
    await send({"type": "http.response.body", "body": data})


def _rpc_error(ident: Any, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident,
            "error": {"code": INVALID_REQUEST, "message": message}}


def _valid_id(ident: Any) -> bool:
    """MCP request ids are strings or integers (never null, a float, a bool)."""
    return isinstance(ident, str) or (isinstance(ident, int) and not isinstance(ident, bool))


class JsonRpcGuard:
    """ASGI wrapper of the MCP endpoint: odd ids and duplicate in-flight ids refused."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._lock = threading.Lock()
        self._in_flight: set[tuple[str, str]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        try:
            body = await _read_body(receive)
        except BodyTooLarge:
            await _json(send, 413, _rpc_error(None, "the request body is too large"))
            return
        requests = _requests(body)
        for ident in requests:
            if not _valid_id(ident):
                await _json(send, 400, _rpc_error(
                    None, f"invalid request: the id must be a string or an integer, got "
                    f"{json.dumps(ident)[:40]}"))
                return
        session = _header(scope, b"mcp-session-id")
        keys = {(session, _id_key(i)) for i in requests} if session else set()
        with self._lock:
            clash = keys & self._in_flight
            if not clash:
                self._in_flight |= keys
        if clash:
            taken = next(iter(clash))[1]
            ident = next(i for i in requests if _id_key(i) == taken)
            await _json(send, 400, _rpc_error(
                ident, f"a request with id {json.dumps(ident)} is still in flight in this "
                "session; every request needs its own id"))
            return
        try:
            await self.app(scope, _replay(body), _releasing(send, self, keys))
        finally:
            self._release(keys)

    def _release(self, keys: set[tuple[str, str]]) -> None:
        if keys:
            with self._lock:
                self._in_flight -= keys


def _id_key(ident: Any) -> str:
    """The SDK matches answers to requests by `str(id)`: 1 and "1" in flight at once in
    one session left the first unanswered (issue #26), so they count as one id here."""
    return str(ident)


async def _read_body(receive: Receive) -> bytes:
    parts: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(parts)


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}
    return receive


def _releasing(send: Send, guard: JsonRpcGuard, keys: set[tuple[str, str]]) -> Send:
    """A send that frees the ids as soon as the answer is complete."""
    async def wrapped(message: Message) -> None:
        await send(message)
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            guard._release(keys)
    return wrapped


def _requests(body: bytes) -> list[Any]:
    """The ids of the requests (messages with a method and an id) in a body; [] when the
    body is not JSON (the SDK answers that with a parse error)."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return []
    messages = message if isinstance(message, list) else [message]
    return [m["id"] for m in messages if isinstance(m, dict) and "method" in m and "id" in m]


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return ""
