"""The module map looked up on demand (issue #22): the files an import names are found
through indexed queries on the path, so a question loads what it touches, a moved file
is found where it now is, and Python module names keep their package rule."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from semlith.graph import answers
from semlith.graph.resolve import Resolver
from semlith.index.indexer import Indexer
from semlith.store import Store
from semlith.store.edges import FOLDER_NAME_SQL, FOLDER_SQL, NAME_SQL
from semlith.types import Filters
from tests.conftest import HashEmbedder
from tests.graph_util import build

FILES = {
    "src/shop/__init__.py": "from .models import Cart\n",
    "src/shop/models.py": "import logging\n\n\nclass Cart:\n    def add(self):\n"
                          "        logging.info('x')\n",
    "src/shop/logging.py": "def info(message):\n    pass\n",
    "tools/models.py": "def helper():\n    pass\n",
    "app.py": "from shop import Cart\nimport models\n\n\ndef main():\n    Cart().add()\n"
              "    models.helper()\n",
    "go/shop/cart.go": "package shop\n\nfunc Total() int { return 1 }\n",
    "go/main.go": 'package main\n\nimport "example.com/acme/shop"\n\n'
                  "func main() { shop.Total() }\n",
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = build(tmp_path / "repo", FILES)
    yield opened
    opened.close()


def callees(store: Store, path: str) -> dict[str, str | None]:
    """written call -> the path of the definition it settles on (None: no edge)."""
    resolver = Resolver(store.graph)
    file_id = resolver.file_id(path)
    assert file_id is not None
    out: dict[str, str | None] = {}
    for call in store.graph.file_edges(file_id).calls:
        res = resolver.resolve(file_id, call)
        written = f"{call.receiver}.{call.name}" if call.receiver else call.name
        out[written] = res.targets[0].path if res is not None and res.settled else None
    return out


@pytest.mark.parametrize(("expression", "index"), [
    (FOLDER_SQL, "files_folder"), (NAME_SQL, "files_name"),
    (FOLDER_NAME_SQL, "files_folder_name")])
def test_module_lookups_are_indexed(store: Store, expression: str, index: str) -> None:
    plan = store.catalog.db.execute(
        f"EXPLAIN QUERY PLAN SELECT f.id FROM files f WHERE {expression} = ?", ("x",)
    ).fetchall()
    assert any(f"USING INDEX {index} " in str(row[-1]) for row in plan), plan


def test_python_modules_keep_the_package_rule(store: Store) -> None:
    resolver = Resolver(store.graph)
    models = resolver.file_id("src/shop/models.py")
    assert models is not None
    paths = {module: [resolver.modules.file(i).path for i in
                      resolver.modules.resolve(models, module)]
             for module in ("shop", "shop.models", "shop.logging", "logging", "models",
                            ".logging", "shop.absent")}
    assert paths == {"shop": ["src/shop/__init__.py"], "shop.models": ["src/shop/models.py"],
                     "shop.logging": ["src/shop/logging.py"],
                     "logging": [],  # the standard library, not the package's own module
                     "models": ["tools/models.py"], ".logging": ["src/shop/logging.py"],
                     "shop.absent": []}
    assert callees(store, "src/shop/models.py") == {"logging.info": None}
    assert callees(store, "app.py") == {"Cart": "src/shop/models.py",  # a re-export
                                        "Cart().add": None,
                                        "models.helper": "tools/models.py"}


def test_go_import_paths_name_the_folder_by_its_suffix(store: Store) -> None:
    assert callees(store, "go/main.go") == {"shop.Total": "go/shop/cart.go"}


def test_a_question_loads_the_files_it_touches_not_the_corpus(tmp_path: Path) -> None:
    files = dict(FILES)
    for n in range(30):  # files no question below touches
        files[f"other/m{n}.py"] = f"def unrelated_{n}():\n    pass\n"
    opened = build(tmp_path / "repo", files)
    try:
        answer = answers.neighbors([("s", opened)], "helper", kinds=("calls",),
                                   filters=Filters(), all_edges=False, budget=1000)
        assert [(e.name, e.site) for e in answer.callers] == [("main", "app.py")]
        resolver = answers.resolver_of(opened.graph)
        assert 0 < resolver.modules.loaded <= 6
        assert len(resolver.modules.all_files()) == len(files)
    finally:
        opened.close()


def test_a_moved_module_is_found_where_it_now_is(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    opened = build(root, FILES)
    try:
        assert callees(opened, "app.py")["models.helper"] == "tools/models.py"
        before = Resolver(opened.graph).file_id("tools/models.py")
        (root / "lib").mkdir()
        (root / "tools" / "models.py").rename(root / "lib" / "models.py")
        Indexer(opened, root, HashEmbedder).run()
        # the same row renamed (its edges kept): the path indexes follow the rename
        assert Resolver(opened.graph).file_id("lib/models.py") == before
        assert callees(opened, "app.py")["models.helper"] == "lib/models.py"
    finally:
        opened.close()


def test_a_misspelled_name_is_answered_from_a_bounded_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """"no definition of X; nearest: ..." compared X with every name of the store (1.2 s
    at 112k chunks); now with the names near it, read through the name indexes, at most
    NEAR_LIMIT for each way of being near."""
    from semlith.graph.choose import no_definition
    from semlith.graph.resolve import Resolver
    from semlith.store import names as edges
    from semlith.store.query import Selection

    members = "".join(f"    def method_{i:03d}(self):\n        pass\n\n" for i in range(40))
    store = build(tmp_path / "p", {
        "session.py": "class Session:\n    def send(self):\n        pass\n\n" + members,
        "other.py": "def a_b():\n    pass\n\n\ndef axb():\n    pass\n\n\ndef sender():\n"
                    "    pass\n",
    })
    try:
        resolver = Resolver(store.graph)

        def hint(name: str) -> str:
            return no_definition(resolver, name, Selection())
        assert "nearest: Session.send," in hint("Session.sned")  # its owner's
        assert "nearest: Session.send" in hint("Sesison.send")  # the same name elsewhere
        assert "nearest: sender" in hint("sendre")  # a name that starts alike
        near = {q for _, q in edges.names_near(store.catalog, ["a_b"])}
        assert "a_b" in near and "axb" not in near  # `_` is no LIKE wildcard
        monkeypatch.setattr(edges, "NEAR_LIMIT", 5)  # a store with many names
        assert len(edges.names_near(store.catalog, ["Session", "mehtod"])) <= 3 * 5 + 5
        assert hint("zq") == "no definition of `zq`"  # nothing near: no hint
    finally:
        store.close()


NAMESPACE = {  # no __init__.py anywhere: namespace packages, resolved from the root
    "lib/util/helpers.py": "def slugify(text):\n    return text\n",
    "src/tools/clean.py": "def tidy(text):\n    return text\n",
    "app/main.py": "from lib.util.helpers import slugify\n"
                   "import lib.util.helpers\n"
                   "from lib.util import helpers\n"
                   "import lib\n"
                   "from tools.clean import tidy\n\n\n"
                   "def run():\n"
                   "    slugify(1)\n"
                   "    helpers.slugify(2)\n"
                   "    lib.util.helpers.slugify(3)\n"
                   "    tidy(4)\n",
}


def test_namespace_packages_resolve_from_the_root(tmp_path: Path) -> None:
    """A package without `__init__.py` is the corpus's, as pyright reads it (issue #47:
    a function with 5,050 callers showed none)."""
    store = build(tmp_path / "ns", NAMESPACE)
    try:
        near = answers.neighbors([("ns", store)], "slugify", kinds=("calls",),
                                 filters=Filters(), all_edges=False, budget=4000)
        assert [(e.site, e.line, e.status) for e in near.callers] == [
            ("app/main.py", 9, "resolved"), ("app/main.py", 10, "resolved"),
            ("app/main.py", 11, "resolved")]
        tidy = answers.neighbors([("ns", store)], "tidy", kinds=("calls",),
                                 filters=Filters(), all_edges=False, budget=4000)
        assert [e.line for e in tidy.callers] == [12]  # from src/
    finally:
        store.close()
