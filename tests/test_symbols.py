"""Symbols: the `symbol` command, identifier-shaped queries, and re-chunking old stores."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.index.indexer import Indexer
from semlith.local import LocalLibrary
from semlith.store import Store
from semlith.store.catalog import FORMAT_VERSION
from tests.cli_util import run
from tests.conftest import HashEmbedder

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "sample"
CODE = {
    "pkg/http/exceptions.py": '''
class HTTPException(Exception):
    """An HTTP error with a status code."""

    def __init__(self, status_code):
        self.status_code = status_code
''',
    "pkg/handlers.py": '''
from pkg.http.exceptions import HTTPException


def handle(request):
    """Turn failures into responses; raises HTTPException for bad input."""
    if not request:
        raise HTTPException(400)
    return parse_args(request)


def parse_args(request):
    return dict(request)
''',
    "pkg/builder.py": '''
class Builder:
    """Rack-style middleware builder."""

    def use(self, middleware):
        self.stack.append(middleware)


class Other:
    def use(self, x):
        return x
''',
    # A header is read as C++; the primary template lists before a specialisation
    # that a shorter path would otherwise put first.
    "fmt/a.h": '''
namespace fmt {
template <> struct formatter<int> {
  int width = 0;
};
}
''',
    # Express's way of defining members (issue #21).
    "lib/request.js": '''
var proto = module.exports = {};

/**
 * Dispatch a request into the router.
 */

proto.handle = function handle(req, res, out) {
  return out();
};

defineGetter(req, 'ip', function ip() {
  return proxyaddr(this, this.app.get('trust proxy fn'));
});
''',
    # Go names a method by its receiver's type: `Store.Put` is not `Queue.Put`.
    "store/store.go": '''
package store

type Queue struct{}

func (q Queue) Put(item string) {}

type Store[K comparable] struct{}

// Put keeps item under key.
func (s *Store[K]) Put(key K, item string) {}

func (*Store[K]) reset() {}
''',
    "fmt/detail/core.h": '''
namespace fmt {
template <typename T, typename Enable = void> struct formatter {
  formatter() = delete;
};
}
''',
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    for rel, text in CODE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text.lstrip("\n"))
    monkeypatch.chdir(root)
    assert run("index", "-q").exit_code == 0
    return root


def test_symbol_command_text_and_json(tree: Path) -> None:
    out = run("symbol", "HTTPException").output
    assert out.splitlines()[0] == "pkg/http/exceptions.py:1-5  class HTTPException"
    assert "class HTTPException(Exception):" in out
    hits = json.loads(run("symbol", "Builder.use", "--json").output)
    assert [h["qualname"] for h in hits] == ["Builder.use", "Other.use"]
    assert hits[0]["signature"] == "def use(self, middleware):"
    assert run("symbol", "Builder::use", "--json").output == run(
        "symbol", "Builder.use", "--json").output
    nothing = run("symbol", "nothing_here")
    assert nothing.exit_code == 1 and nothing.output == ""  # as grep: no match, no text


def test_members_assigned_in_javascript_are_symbols(tree: Path) -> None:
    hits = json.loads(run("symbol", "ip", "--json").output)
    assert [(h["path"], h["qualname"], h["kind"]) for h in hits] == [
        ("lib/request.js", "ip", "function")]
    assert hits[0]["signature"] == "defineGetter(req, 'ip', function ip()"
    handle = json.loads(run("symbol", "proto.handle", "--json").output)
    assert (handle[0]["path"], handle[0]["qualname"], handle[0]["kind"]) == (
        "lib/request.js", "proto.handle", "method")
    assert handle[0]["start_line"] == 3  # from its JSDoc, a blank line above


def test_go_methods_are_named_by_their_receivers_type(tree: Path) -> None:
    hits = json.loads(run("symbol", "Store.Put", "--json").output)
    assert [(h["qualname"], h["start_line"]) for h in hits] == [
        ("Store.Put", 9), ("Queue.Put", 5)]  # the type named first, as `Builder.use`
    assert [h["qualname"] for h in json.loads(run("symbol", "reset", "--json").output)] \
        == ["Store.reset"]  # a receiver without a name


def test_a_primary_template_comes_before_its_specialisations(tree: Path) -> None:
    hits = json.loads(run("symbol", "formatter", "--json").output)
    assert [(h["path"], h["kind"], h["qualname"]) for h in hits[:2]] == [
        ("fmt/detail/core.h", "struct", "fmt.formatter"),
        ("fmt/a.h", "struct", "fmt.formatter")]
    assert hits[1]["signature"].startswith("template <> struct formatter<int>")


@pytest.mark.parametrize(("query", "path", "def_line"), [
    ("HTTPException", "pkg/http/exceptions.py", 1),
    ("parse_args", "pkg/handlers.py", 11),
    ("Builder", "pkg/builder.py", 1),
])
def test_identifier_queries_put_the_definition_first(tree: Path, query: str, path: str,
                                                     def_line: int) -> None:
    hits = json.loads(run("search", query, "--json").output)
    assert hits[0]["path"] == path, hits[0]
    assert hits[0]["start_line"] <= def_line <= hits[0]["end_line"]
    assert hits[0]["symbol"] == query and hits[0]["kind"] in {"class", "function"}


def test_changed_chunking_recuts_unchanged_files_on_the_next_full_run(
        tmp_path: Path, settings: Settings) -> None:
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n)).index([str(root)])
    store = Store.open(root / ".semlith", settings=settings, writable=True)
    indexer = Indexer(store, root, lambda: HashEmbedder())
    # As if the Go query had been improved since (or the store came from format 1).
    store.catalog.db.execute("UPDATE files SET chunking='old' WHERE lang='go'")
    store.catalog.db.execute("DELETE FROM symbols")
    report = indexer.run()
    assert report.indexed == 1 and report.rechunked == 1
    assert "re-chunked 1 unchanged file (their language" in report.summary()
    assert store.catalog.db.execute("SELECT COUNT(*) FROM symbols").fetchone()[0] > 0
    again = indexer.run()
    assert again.indexed == 0 and not again.rechunked
    store.close()


def test_format_one_store_is_upgraded(tmp_path: Path, settings: Settings) -> None:
    folder = tmp_path / "store"
    store = Store.create(folder, model="m", dim=8, settings=settings)
    store.catalog.set_meta("format_version", 1)
    store.close()
    again = Store.open(folder, settings=settings)
    assert again.catalog.meta("format_version") == str(FORMAT_VERSION)
    again.close()


def test_module_level_names_answer_by_name_and_by_their_module(tmp_path: Path) -> None:
    # flask's `g` is bound at the top of globals.py; pylint's test data bind hundreds of
    # `a`s and `ABC`s, which an issue's `self.a` or `abc.ABC` must not pull in.
    from semlith.base.text import Identifier
    from semlith.search.symbols import lookup
    from tests.graph_util import build

    store = build(tmp_path / "p", {
        "src/flask/globals.py": "g = LocalProxy('g')\n\n\ndef a():\n    pass\n",
        "tests/data/crash.py": "ABC = 1\nfrom x import y\n",
    })
    try:
        def found(name: str, qualifier: str = "") -> list[tuple[str, str]]:
            ident = Identifier(name, qualifier, f"{qualifier}.{name}" if qualifier else name)
            return [(d.path, d.kind) for d in lookup(store.corpus, ident)]

        assert found("g") == [("src/flask/globals.py", "variable")]
        assert found("g", "flask") == [("src/flask/globals.py", "variable")]  # its folder
        assert found("g", "globals") == [("src/flask/globals.py", "variable")]  # its file
        assert found("ABC", "abc") == []  # no module `abc` binds it
        assert found("ABC") == [("tests/data/crash.py", "variable")]
        assert found("a", "self") == [("src/flask/globals.py", "function")]  # as before
    finally:
        store.close()
    tree = tmp_path / "p"
    assert "src/flask/globals.py:1" in run("symbol", "g", "--store", str(tree)).output


def test_a_definition_with_the_written_owner_comes_before_a_bare_name(tmp_path: Path) -> None:
    # seaborn's issue names `so.Nominal` (an import alias) first and
    # `Plotter._finalize_figure` after: the method that carries its owner is the answer.
    from semlith.base.text import identifiers
    from semlith.search.symbols import symbol_list
    from tests.graph_util import build

    store = build(tmp_path / "p", {
        "pkg/scales.py": "class Nominal:\n    pass\n",
        "pkg/plot.py": "class Plotter:\n    def _finalize_figure(self):\n        pass\n",
    })
    try:
        idents = identifiers("use so.Nominal like categorical axes in Plotter._finalize_figure")
        listed = symbol_list(store.corpus, idents, 10)
        assert [name for name, _ in listed.values()] == ["_finalize_figure", "Nominal"]
    finally:
        store.close()


ISSUE = '''Saving a cart fails after the upgrade when the session was reused by a worker.

Traceback (most recent call last):
  File "/home/u/shop.py", line 3, in <module>
    main()
  File "/srv/venv/lib/python3.11/site-packages/shop/api.py", line 12, in checkout
    return store(cart)
  File "/srv/venv/lib/python3.11/site-packages/shop/cart.py", line 40, in store
    raise ValueError(cart)
  File "/usr/lib/python3.11/json/encoder.py", line 9, in encode
    pass
ValueError: cart is closed

The same happens when `save` is called from settings.py in the admin.
''' + "Nothing in the changelog mentions it and it worked before the release. " * 4


def test_the_files_an_issue_names_are_the_indexed_files_its_paths_end_with(
        tmp_path: Path) -> None:
    """A frame's `site-packages/shop/cart.py` is `src/shop/cart.py`; `json/encoder.py` is
    no project file though one is named `encoder.py`; a bare `settings.py` counts when
    one file has it; a frame's function is the name its definition has there."""
    from semlith.ranking.evidence import read_evidence
    from semlith.search.symbols import issue_files
    from tests.graph_util import build

    store = build(tmp_path / "p", {
        "src/shop/cart.py": "def store(cart):\n    return cart\n",
        "src/shop/api.py": "def checkout(cart):\n    return store(cart)\n",
        "src/shop/encoder.py": "def encode(x):\n    return x\n",
        "src/shop/admin/settings.py": "def save():\n    pass\n",
        "tests/shop/test_api.py": "def test_checkout():\n    pass\n",
    })
    try:
        found = issue_files(store.corpus, read_evidence(ISSUE))
        assert found == {"src/shop/api.py": frozenset({"checkout"}),
                         "src/shop/cart.py": frozenset({"store"}),
                         "src/shop/admin/settings.py": frozenset()}
        assert issue_files(store.corpus, read_evidence("how is a cart stored")) == {}
    finally:
        store.close()


def test_a_bare_file_name_two_files_have_names_neither(tmp_path: Path) -> None:
    from semlith.ranking.evidence import read_evidence
    from semlith.search.symbols import issue_files
    from tests.graph_util import build

    store = build(tmp_path / "p", {
        "a/settings.py": "X = 1\n", "b/settings.py": "Y = 2\n",
        "src/shop/cart.py": "def store(cart):\n    return cart\n",
    })
    try:
        assert set(issue_files(store.corpus, read_evidence(ISSUE))) == {"src/shop/cart.py"}
    finally:
        store.close()


def test_a_frames_own_definition_comes_first_after_a_written_owner(tmp_path: Path) -> None:
    """`save_cart` is defined in two files; the frame says which. A definition in a named file
    comes before one found by its name alone; the owner an issue writes stays first."""
    from semlith.base.text import identifiers
    from semlith.search.symbols import symbol_list
    from tests.graph_util import build

    store = build(tmp_path / "p", {
        "src/a/disk.py": "def save_cart(cart):\n    return cart\n",
        "src/shop/cart.py": "def save_cart(cart):\n    return cart\n",
        "src/shop/util.py": "def run_helper():\n    pass\n",
        "src/shop/plot.py": "class Plotter:\n    def draw(self):\n        pass\n",
        "src/b/other.py": "def run_helper():\n    pass\n",
    })
    try:
        def listed(text: str, located: dict[str, frozenset[str]]) -> list[str]:
            found = symbol_list(store.corpus, identifiers(text), 10, located=located)
            places = store.corpus.places(list(found))
            return [f"{places[cid].path}:{name}" for cid, (name, _) in found.items()]

        assert listed("run_helper save_cart", {})[:2] == ["src/b/other.py:run_helper",
                                                          "src/shop/util.py:run_helper"]
        at_cart = {"src/shop/cart.py": frozenset({"save_cart"}),
                   "src/shop/util.py": frozenset()}
        assert listed("run_helper save_cart", at_cart) == [
            "src/shop/cart.py:save_cart", "src/shop/util.py:run_helper",
            "src/b/other.py:run_helper", "src/a/disk.py:save_cart"]
        assert listed("run_helper save_cart Plotter.draw", at_cart)[:2] == [
            "src/shop/plot.py:draw", "src/shop/cart.py:save_cart"]
    finally:
        store.close()


def test_an_issue_answers_first_with_the_definition_its_traceback_broke_in(
        tmp_path: Path) -> None:
    """End to end: `store` is defined in two modules; the issue's frame says which."""
    from semlith.embed.pool import EmbedderPool
    from semlith.search.searcher import Searcher
    from tests.conftest import HashEmbedder
    from tests.graph_util import build

    store = build(tmp_path / "p", {
        "db.py": "def store(cart):\n    # Saving a cart reused by a worker after the upgrade"
                 " fails.\n    pass\n",
        "src/shop/cart.py": "def store(c):\n    pass\n",
        "src/shop/api.py": "def checkout(cart):\n    return store(cart)\n",
    })
    try:
        searcher = Searcher([("t", store)], EmbedderPool(HashEmbedder))
        hits = searcher.search(ISSUE, 3)
        assert (hits[0].path, hits[0].symbol) == ("src/shop/cart.py", "store")
        assert "db.py" not in [h.path for h in hits[:2]]
    finally:
        store.close()


@pytest.mark.parametrize(("trace", "found"), [
    ("Exception in thread \"main\" java.lang.IllegalStateException: closed\n"
     "\tat com.shop.cart.Cart.add(Cart.java:42)\n\tat java.base/java.lang.Thread.run"
     "(Thread.java:833)\n", {"src/main/java/com/shop/cart/Cart.java": {"add"}}),
    ("TypeError: Cannot read properties of undefined (reading 'id')\n"
     "    at handle (/srv/app/src/router.js:12:5)\n    at /srv/app/index.js:3:1\n",
     {"src/router.js": {"handle"}, "index.js": set()}),
    ("panic: runtime error: invalid memory address\n\ngoroutine 1 [running]:\n"
     "main.(*Server).Handle(0x0)\n\t/home/u/app/server.go:42 +0x1d\n"
     "main.main()\n\t/usr/local/go/src/runtime/proc.go:250 +0x25\n",
     {"server.go": {"Handle"}}),
    ("Traceback (most recent call last):\n  File \"C:\\Users\\u\\venv\\Lib\\site-packages"
     "\\shop\\cart.py\", line 40, in store\n    raise ValueError(cart)\nValueError: x\n",
     {"src/shop/cart.py": {"store"}}),
    ("thread 'main' panicked at src/parser.rs:118:14:\nstack backtrace:\n"
     "   2: mycrate::parser::Parser::expect\n             at ./src/parser.rs:118:14\n",
     {"src/parser.rs": {"expect"}}),
])
def test_each_trace_shape_names_its_files_and_functions(
        tmp_path: Path, trace: str, found: dict[str, set[str]]) -> None:
    """Java's package folders, a JavaScript frame without a function, Go's file at the
    store's top (its runtime's `proc.go` is not the store's `pkg/proc.go`), a Python
    frame on Windows, Rust's backtrace."""
    from semlith.ranking.evidence import read_evidence
    from semlith.search.symbols import issue_files
    from tests.graph_util import build

    store = build(tmp_path / "p", {
        "src/main/java/com/shop/cart/Cart.java": "class Cart { void add() {} }\n",
        "src/router.js": "function handle(req) { return req.id }\n",
        "index.js": "handle({})\n", "server.go": "package main\n", "pkg/proc.go": "package pkg\n",
        "src/parser.rs": "fn expect() {}\n", "src/shop/cart.py": "def store(c):\n    pass\n",
    })
    try:
        assert issue_files(store.corpus, read_evidence(trace)) == {
            path: frozenset(names) for path, names in found.items()}
    finally:
        store.close()
