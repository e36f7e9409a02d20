"""What an LSP's call hierarchy counts (issue #45): a call of a class is a call of the
constructor it runs, so impact and path go through it; the language's own receivers
(literals, builtin classes) are no project call; other edges are listed apart from
calls; counts say when they may be short; a short name means its concrete definition."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from semlith.errors import UnknownSymbol
from semlith.graph import answers
from semlith.store import Store
from semlith.types import Filters
from tests.cli_util import run
from tests.graph_util import build

ROUTING = {  # starlette's shape: routes built by calls, an abstract base, a router
    "web/__init__.py": "",
    "web/paths.py": "def compile_path(path):\n    return path\n",
    "web/handlers.py": "def request_response(func):\n    return func\n",
    "web/routing.py": (
        "from web.handlers import request_response\n"
        "from web.paths import compile_path\n\n\n"
        "class BaseRoute:\n"
        "    def matches(self, scope):\n"
        "        raise NotImplementedError()\n\n\n"
        "class Route(BaseRoute):\n"
        "    def __init__(self, path, endpoint):\n"
        "        self.app = request_response(endpoint)\n"
        "        self.regex = compile_path(path)\n\n"
        "    def matches(self, scope):\n"
        "        return True\n\n\n"
        "class WebSocketRoute(Route):\n"
        "    pass\n\n\n"
        "class Router:\n"
        "    def __init__(self):\n"
        "        self.routes = []\n\n"
        "    def add_route(self, path, endpoint):\n"
        "        self.routes.append(Route(path, endpoint))\n\n"
        "    def add_websocket_route(self, path, endpoint):\n"
        "        WebSocketRoute(path, endpoint)\n"),
    "web/builtins.py": (
        "def collect(rows):\n"
        "    seen = []\n"
        "    index = {}\n"
        "    names = dict(rows)\n"
        "    seen.append(rows)\n"
        "    index.update(rows)\n"
        "    names.update(rows)\n"
        "    return seen\n\n\n"
        "class Bag:\n"
        "    def __init__(self):\n"
        "        self.items = {}\n\n"
        "    def append(self, item):\n"
        "        self.items.update(item)\n\n"
        "    def update(self, other):\n"
        "        self.items.update(other)\n"),
    "web/digest.py": (
        "def header(algorithm):\n"
        "    if algorithm == 'md5':\n"
        "        def md5_utf8(x):\n"
        "            return x\n"
        "        hash_utf8 = md5_utf8\n"
        "    else:\n"
        "        def sha_utf8(x):\n"
        "            return x\n"
        "        hash_utf8 = sha_utf8\n"
        "    return hash_utf8('a')\n\n\n"
        "def fetch(url):\n"
        "    from web.session import Session\n"
        "    with Session(url) as session:\n"
        "        return session.request(url)\n"),
    "web/session.py": (
        "class Session:\n"
        "    def __init__(self, url):\n"
        "        self.url = url\n\n"
        "    def request(self, url):\n"
        "        return url\n"),
}


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[tuple[str, Store]]]]:
    root = tmp_path_factory.mktemp("lsp") / "web"
    store = build(root, ROUTING)
    yield root, [("web", store)]
    store.close()


def callers(opened: list[tuple[str, Store]], name: str) -> set[str]:
    near = answers.neighbors(opened, name, kinds=("calls",), filters=Filters(),
                             all_edges=False, budget=4000)
    return {e.name for e in near.callers}


def test_a_call_of_a_class_is_a_call_of_its_constructor(
        web: tuple[Path, list[tuple[str, Store]]]) -> None:
    _, opened = web
    # Route(...) and WebSocketRoute(...) (which inherits it) run Route.__init__
    assert callers(opened, "Route.__init__") == {"Router.add_route",
                                                 "Router.add_websocket_route"}
    assert callers(opened, "Route") == {"Router.add_route"}  # its instantiations
    near = answers.neighbors(opened, "Router.add_route", kinds=("calls",), filters=Filters(),
                             all_edges=False, budget=4000)
    assert "Route.__init__" in {e.name for e in near.callees}
    reached = answers.impact(opened, "request_response", depth=3, filters=Filters(),
                             all_edges=False, budget=4000)
    assert [(e.name, e.depth) for e in reached.entries] == [
        ("Route.__init__", 1), ("Router.add_route", 2), ("Router.add_websocket_route", 2)]
    chain = answers.path(opened, "Router.add_route", "compile_path", filters=Filters(),
                         all_edges=False, budget=4000)
    assert [h.name for h in chain.hops] == ["Route.__init__", "compile_path"]
    assert chain.length == 2 and not chain.hypothesis


def test_the_languages_own_receivers_are_no_project_call(
        web: tuple[Path, list[tuple[str, Store]]]) -> None:
    _, opened = web
    # `seen = []`, `index = {}`, `names = dict(...)`, `self.items = {}`: a list's and a
    # dict's methods, not Bag.append / Bag.update, and no ambiguous call either
    for name in ("Bag.append", "Bag.update"):
        near = answers.neighbors(opened, name, kinds=("calls",), filters=Filters(),
                                 all_edges=True, budget=4000)
        assert near.callers == () and "ambiguous_callers" not in near.omitted
        assert near.callers_counted == "0"
    collect = answers.neighbors(opened, "collect", kinds=("calls",), filters=Filters(),
                                all_edges=False, budget=4000)
    assert collect.callees == () and collect.omitted["outside_callees"] == 4


def test_a_name_bound_on_each_branch_calls_each(
        web: tuple[Path, list[tuple[str, Store]]]) -> None:
    _, opened = web
    for inner in ("header.md5_utf8", "header.sha_utf8"):
        near = answers.neighbors(opened, inner, kinds=("calls",), filters=Filters(),
                                 all_edges=False, budget=4000)
        assert [(e.name, e.status) for e in near.callers] == [("header", "extracted")]
    # `with Session(url) as session`: session is a Session
    assert callers(opened, "Session.request") == {"fetch"}


def test_other_edges_are_listed_apart_from_calls(
        web: tuple[Path, list[tuple[str, Store]]]) -> None:
    _, opened = web
    near = answers.neighbors(opened, "Route", kinds=(), filters=Filters(), all_edges=False,
                             budget=4000)
    assert {e.kind for e in near.callers} == {"calls"}
    assert ("WebSocketRoute", "inherits") in {(e.name, e.kind) for e in near.links_in}
    assert {(e.name, e.kind) for e in near.links_out} == {
        ("BaseRoute", "inherits"), ("Route.__init__", "contains"), ("Route.matches", "contains")}


def test_a_short_name_means_its_concrete_definition_first(
        web: tuple[Path, list[tuple[str, Store]]]) -> None:
    root, opened = web
    near = answers.neighbors(opened, "matches", kinds=(), filters=Filters(), all_edges=False,
                             budget=4000)
    assert near.symbol.name == "Route.matches"  # not the abstract BaseRoute.matches
    assert near.others == 1 and [a.name for a in near.alternatives] == ["BaseRoute.matches"]
    with pytest.raises(UnknownSymbol, match=r"nearest: Route\.matches, BaseRoute\.matches"):
        answers.neighbors(opened, "Rout.matches", kinds=(), filters=Filters(),
                          all_edges=False, budget=4000)
    shown = run("neighbors", "matches", "--store", str(root / ".semlith"))
    assert "1 other definition of matches: BaseRoute.matches web/routing.py:6-7; " \
        "name one as Type.method" in shown.output  # one file: no --path to suggest
    assert "--path" not in shown.output


def test_a_count_says_when_callers_may_be_missing(
        web: tuple[Path, list[tuple[str, Store]]]) -> None:
    root, opened = web
    with sqlite3.connect(root / ".semlith" / "store.db") as db:  # a file that failed
        db.execute("UPDATE edge_files SET failed = 'parse deadline' WHERE file_id = "
                   "(SELECT id FROM files WHERE path = 'web/builtins.py')")
    try:
        answers._RESOLVERS.clear()
        near = answers.neighbors(opened, "compile_path", kinds=("calls",), filters=Filters(),
                                 all_edges=False, budget=4000)
        assert near.callers_counted == "≥ 1; 1 file unread"
        shown = run("neighbors", "compile_path", "--store", str(root / ".semlith"))
        assert "callers (≥ 1; 1 file unread):" in shown.output
        assert "1 file's edges could not be read" in shown.output
    finally:
        with sqlite3.connect(root / ".semlith" / "store.db") as db:
            db.execute("UPDATE edge_files SET failed = ''")


OTHERS = {  # `new X()` (JS, Java) and `X.new` (Ruby) run X's constructor
    "js/cart.js": "export class Cart {\n  constructor(items) {\n    this.items = items;\n  }\n}\n"
                  "export class Basket extends Cart {}\n",
    "js/app.js": "import { Cart, Basket } from './cart.js';\n\n"
                 "export function main() {\n  const c = new Cart([]);\n  new Basket([]);\n"
                 "  return c;\n}\n",
    "java/com/shop/Cart.java": "package com.shop;\n\npublic class Cart {\n"
                               "    public Cart() {\n    }\n}\n",
    "java/com/shop/App.java": "package com.shop;\n\npublic class App {\n"
                              "    public static void main(String[] args) {\n"
                              "        Cart cart = new Cart();\n    }\n}\n",
    "ruby/cart.rb": "class Cart\n  def initialize(items)\n    @items = items\n  end\nend\n\n"
                    "def checkout\n  Cart.new([])\nend\n",
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[tuple[str, Store]]]:
    store = build(tmp_path_factory.mktemp("others") / "shop", OTHERS)
    yield [("shop", store)]
    store.close()


@pytest.mark.parametrize(("constructor", "expected"), [
    ("Cart.constructor", {"main"}),  # `new Basket()` too: it inherits the constructor
    ("Cart.Cart", {"App.main"}),
    ("Cart.initialize", {"checkout"}),
])
def test_new_runs_the_constructor_in_other_languages(
        shop: list[tuple[str, Store]], constructor: str, expected: set[str]) -> None:
    near = answers.neighbors(shop, constructor, kinds=("calls",), filters=Filters(),
                             all_edges=False, budget=4000)
    assert {e.name for e in near.callers} == expected
    if constructor == "Cart.constructor":
        assert [e.line for e in near.callers] == [4, 5]


BRIEF = {
    "cache/evict.py": "def drop_oldest(entries):\n    return entries[1:]\n\n\n"
                      "def count_bytes(entries):\n    return len(entries)\n\n\n"
                      "def log_size(size):\n    return size\n\n\n"
                      "def notify_listeners(entries):\n    return entries\n\n\n"
                      "def evict(entries, limit):\n"
                      "    \"\"\"How the cache is evicted when it grows past its limit.\"\"\"\n"
                      + "".join(f"    step_{i} = {i}  # keeping the cache within its limit, "
                                f"evicting the oldest entries first when it is full\n"
                                for i in range(150))
                      + "    size = count_bytes(entries)\n    log_size(size)\n"
                      "    notify_listeners(entries)\n    return drop_oldest(entries)\n",
}


def test_brief_fills_its_budget_and_says_what_it_dropped(tmp_path: Path) -> None:
    """At --budget 800 brief showed 2 of 4 callees, dropped the one that answers, printed
    942 characters, and said nothing was left out (issue #45)."""
    root = tmp_path / "cache"
    build(root, BRIEF).close()
    shown = run("brief", "how is the cache evicted, which entries does it drop oldest",
                "--budget", "300", "--store", str(root / ".semlith"))
    assert shown.exit_code == 0, shown.output
    assert 0.8 * 1200 <= len(shown.output) <= 1200 + 80  # filled, trimmed text last
    calls = [line for line in shown.output.splitlines() if line.startswith("  calls ")]
    assert len(calls) == 4 and calls[0].startswith("  calls drop_oldest")  # the answer first
    as_json = json.loads(run("brief", "how is the cache evicted", "--budget", "300", "--json",
                             "--store", str(root / ".semlith")).output)
    assert as_json["trimmed"] > 0 and as_json["omitted"] == {}
    tiny = json.loads(run("brief", "how is the cache evicted", "--budget", "100", "--json",
                          "--store", str(root / ".semlith")).output)
    assert tiny["omitted"]["callees"] >= 1 and tiny["trimmed"] > 0
