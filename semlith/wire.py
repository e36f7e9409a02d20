"""The `/api` codec, derived from the `Library` protocol's signatures (issue #44).

Every operation was written six times: the protocol, `LocalLibrary`, `RemoteLibrary`'s
hand encoder, `/api`'s hand decoder, an MCP tool and a CLI command, each default four
times. The wire is now read off `semlith.library.Library` once: each public method is an
`Operation` whose parameters (names, annotations, defaults) come from its signature.
`RemoteLibrary` (remote.py) sends `request(op, arguments)`; `/api` (server/api.py) turns
the body back with `arguments(op, body)`, each value checked against its annotation (a
one-line `BadRequest` naming the field), calls the method and answers `answer(value)`,
which `result(op, data)` rebuilds on the caller's side.

What never crosses the wire: callbacks (`index` streams its progress and skips as JSON
lines instead, `watch` reports nothing back) and the operations the caller's own
process answers (`LOCAL`: the installation's models, languages and formats, attaching
a mirror, closing).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import math
import threading
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from semlith.errors import BadRequest
from semlith.library import Library, OnEvent, OnProgress, OnSkip
from semlith.types import Value, from_json

# Answered by the caller's process, never by the daemon.
LOCAL = frozenset({"close", "models", "fetch_model", "languages", "formats", "attach"})
_CALLBACKS = (OnProgress, OnSkip, OnEvent, threading.Event)
_JSON_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: Any  # the resolved annotation
    default: Any = inspect.Parameter.empty

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty


@dataclass(frozen=True, slots=True)
class Operation:
    """One `Library` method as the wire sees it."""

    name: str
    params: tuple[Param, ...]  # what is sent, in the signature's order
    returns: Any
    signature: inspect.Signature  # the whole protocol signature (callbacks included)

    def bind(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The call's arguments by name, the protocol's defaults filled in."""
        bound = self.signature.bind(None, *args, **kwargs)
        bound.apply_defaults()
        return {k: v for k, v in bound.arguments.items() if k != "self"}


@functools.cache
def operations() -> dict[str, Operation]:
    """Every `Library` method the daemon answers, by name."""
    out = {}
    for name, func in inspect.getmembers(Library, inspect.isfunction):
        if name.startswith("_") or name in LOCAL:
            continue
        hints = typing.get_type_hints(func)
        signature = inspect.signature(func)
        params = tuple(Param(p.name, hints[p.name], p.default)
                       for p in signature.parameters.values()
                       if p.name != "self" and not _is_callback(hints[p.name]))
        out[name] = Operation(name, params, hints["return"], signature)
    return out


def _is_callback(kind: Any) -> bool:
    options = typing.get_args(kind) if _is_union(kind) else (kind,)
    return any(o in _CALLBACKS for o in options)


def _is_union(kind: Any) -> bool:
    return typing.get_origin(kind) in (typing.Union, types.UnionType)


# -- the caller's side ------------------------------------------------------------------


def request(op: Operation, arguments: dict[str, Any]) -> dict[str, Any]:
    """The JSON body of a call with `arguments` (by name, defaults filled in)."""
    return {p.name: _encode(arguments[p.name]) for p in op.params}


def result(op: Operation, data: Any) -> Any:
    """The answer of `op` rebuilt from its JSON."""
    return _rebuild(op.returns, data)


def _encode(value: Any) -> Any:
    if isinstance(value, Value):
        return value.as_json()
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    return value


def _rebuild(kind: Any, data: Any) -> Any:
    origin = typing.get_origin(kind)
    if origin in (list, tuple, Sequence):
        (item, *_) = typing.get_args(kind) or (Any,)
        return [_rebuild(item, d) for d in data]
    if _is_union(kind):
        return None if data is None else _rebuild(_optional(kind), data)
    if isinstance(kind, type) and issubclass(kind, Value):
        own = kind.__dict__.get("from_json")  # a type with nested values rebuilds itself
        return own.__get__(None, kind)(data) if own is not None else from_json(kind, data)
    return data


def _optional(kind: Any) -> Any:
    options = [o for o in typing.get_args(kind) if o is not type(None)]
    return options[0] if len(options) == 1 else Any


# -- the daemon's side ------------------------------------------------------------------


def arguments(op: Operation, body: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments a JSON body gives `op`, each checked against its annotation
    (BadRequest naming the field); absent ones take the protocol's defaults. Names the
    protocol does not have are ignored (an older daemon and a newer client)."""
    out = {}
    for p in op.params:
        if p.name in body:
            out[p.name] = _decode(p.kind, body[p.name], p.name)
        elif p.required:
            raise BadRequest(f"{p.name} is missing")
        else:
            out[p.name] = p.default
    return out


def answer(value: Any) -> Any:
    """A method's result as JSON."""
    return _encode(value)


def _decode(kind: Any, value: Any, name: str) -> Any:
    if _is_union(kind):
        return None if value is None else _decode(_optional(kind), value, name)
    origin = typing.get_origin(kind)
    if origin in (list, tuple, Sequence):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise BadRequest(f"{name} must be a list of strings, got {_shown(value)}")
        return tuple(value)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):  # Filters, Scope
        if not isinstance(value, dict):
            raise BadRequest(f"{name} must be an object, got {_shown(value)}")
        hints = typing.get_type_hints(kind)
        return kind(**{f.name: _decode(hints[f.name], value[f.name], f.name)
                       for f in dataclasses.fields(kind) if f.name in value})
    return _scalar(kind, value, name)


def _scalar(kind: Any, value: Any, name: str) -> Any:
    if kind is Any:
        return value
    good = isinstance(value, kind) and not (isinstance(value, bool) and kind is not bool)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        good, value = True, float(value)
    if kind in (int, float) and good and isinstance(value, float) and not math.isfinite(value):
        good = False
    if not good:
        raise BadRequest(f"{name} must be {_JSON_NAMES.get(kind, kind.__name__)}, got "
                         f"{_shown(value)}")
    return value


def _shown(value: Any) -> str:
    try:
        return json.dumps(value)[:60]
    except (ValueError, TypeError):
        return repr(value)[:60]

