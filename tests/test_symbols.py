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
