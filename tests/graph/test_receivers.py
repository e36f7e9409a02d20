"""Receivers from outside the corpus are no edge (issue #22): a literal, a builtin class,
an object a class from outside made; a receiver the corpus's own class made still
resolves to it."""

from __future__ import annotations

from pathlib import Path

from semlith.graph.resolve import Resolver
from semlith.graph.status import Status
from tests.graph_util import build

FILES = {
    "shop/__init__.py": "",
    "shop/cart.py": '''import threading
from contextvars import ContextVar

_current = ContextVar("cart")


class Cart:
    def __init__(self):
        self._lock = threading.Lock()
        self.items = Items()

    def get(self, key):
        return key

    def join(self, other):
        return other

    def __repr__(self):
        return object.__repr__(self)

    def save(self):
        self._lock.acquire()
        self.items.add(1)


class Items:
    def add(self, item):
        return item

    def acquire(self):
        pass


def current():
    cart = Cart()
    cart.get("a")
    _current.get()
    "".join(["a"])
    {"a": 1}.get("a")
    return dict.fromkeys(["a"])
''',
}


def resolved(tmp_path: Path) -> dict[str, tuple[str, Status] | None]:
    """written call -> (definition path, status), None when it is no edge."""
    store = build(tmp_path / "repo", FILES)
    try:
        resolver = Resolver(store.graph)
        file_id = resolver.file_id("shop/cart.py")
        assert file_id is not None
        out: dict[str, tuple[str, Status] | None] = {}
        for call in store.graph.file_edges(file_id).calls:
            res = resolver.resolve(file_id, call)
            written = f"{call.receiver}.{call.name}" if call.receiver else call.name
            out[written] = None if res is None else (
                res.targets[0].path if res.settled else "", res.status)
        return out
    finally:
        store.close()


def test_receivers_from_outside_are_no_edge(tmp_path: Path) -> None:
    here = ("shop/cart.py", Status.EXTRACTED)
    assert resolved(tmp_path) == {
        "threading.Lock": None, "ContextVar": None, "Items": here,
        "object.__repr__": None,  # a builtin class
        "self._lock.acquire": None,  # made by threading.Lock(): not Items.acquire
        "self.items.add": here, "Cart": here,
        "cart.get": here,  # made by the corpus's Cart()
        "_current.get": None,  # made by ContextVar(): not Cart.get
        '"".join': None, '{"a": 1}.get': None,  # literals
        "dict.fromkeys": None,
    }
