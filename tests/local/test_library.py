"""The one face: `LocalLibrary` as every adapter calls it (scopes, locators, symbols).

Each test here pins a defect the agent surface had when the CLI, the MCP tools and the
JSON API each built their own operation (issue #12).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.errors import BadTarget, Hint, StoreNotFound, UnknownStore
from semlith.local import LocalLibrary
from semlith.local.locators import parse_target
from semlith.types import Scope
from tests.conftest import HashEmbedder

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures" / "sample"


def library(settings: Settings, agent: bool = False) -> LocalLibrary:
    return LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n), agent=agent)


@pytest.fixture
def two(tmp_path: Path, settings: Settings) -> tuple[Path, Path]:
    """Two indexed projects: the sample, and another with a deployment document."""
    proj = tmp_path / "proj"
    shutil.copytree(SAMPLE, proj, ignore=shutil.ignore_patterns(".semlith"))
    other = tmp_path / "other"
    (other / "docs").mkdir(parents=True)
    (other / "docs" / "deployment.md").write_text(
        "# Deployment\n\nDeploy the retry service with exponential backoff settings.\n")
    (other / "requests").mkdir()
    (other / "requests" / "sessions.py").write_text(
        "class Session:\n    def send(self, request):\n        return request\n")
    (other / "tests").mkdir()
    (other / "tests" / "test_redirects.py").write_text(
        "class RedirectSession:\n    def send(self, request):\n        return None\n")
    lib = library(settings)
    lib.index([str(proj)])
    lib.index([str(other)])
    return proj, other


# -- scope -------------------------------------------------------------------------------

def test_a_search_near_a_project_covers_only_its_stores(two: tuple[Path, Path],
                                                       settings: Settings) -> None:
    proj, _ = two
    answer = library(settings, agent=True).search(
        "deployment retry backoff", k=10, scope=Scope(near=(str(proj / "net"),)))
    assert answer.stores == ("proj",) and not answer.note
    assert {h.store for h in answer.hits} == {"proj"}


def test_every_store_on_request_and_a_refusal_when_no_store_covers_the_folder(
        two: tuple[Path, Path], settings: Settings, tmp_path: Path) -> None:
    """#45: an agent in a folder no store covers searched every store; it is told how to
    index the folder, or to ask for every store."""
    lib = library(settings, agent=True)
    everything = lib.search("deployment", k=10, scope=Scope(("*",)))
    assert set(everything.stores) == {"proj", "other"}
    elsewhere = str(tmp_path / "my work")
    with pytest.raises(StoreNotFound) as refused:
        lib.search("deployment", k=10, scope=Scope(near=(elsewhere,)))
    assert str(refused.value) == (
        f'no store indexes {elsewhere}; `semlith index "{elsewhere}"` indexes it, or pass '
        'stores: ["*"] for every store (proj, other)')


def test_the_cli_refuses_a_folder_no_store_covers(two: tuple[Path, Path], settings: Settings,
                                                 tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(StoreNotFound, match=r"no store indexes ") as refused:
        library(settings).search("x", scope=Scope(near=(str(tmp_path / "elsewhere"),)))
    assert refused.value.hint is Hint.CHOOSE_STORE  # the CLI words it: --store NAME or '*'
    assert "--store" not in str(refused.value)  # an agent reads this message too


@pytest.mark.parametrize("how", ["name", "project", "store", "inside"])
def test_a_store_is_named_by_name_project_store_folder_or_a_folder_inside(
        two: tuple[Path, Path], settings: Settings, how: str) -> None:
    proj, _ = two
    selector = {"name": "proj", "project": str(proj), "store": str(proj / ".semlith"),
                "inside": str(proj / "net")}[how]
    answer = library(settings).search("retry", scope=Scope((selector,)))
    assert answer.stores == ("proj",)


def test_an_unknown_store_lists_the_valid_ones(two: tuple[Path, Path],
                                              settings: Settings) -> None:
    with pytest.raises(UnknownStore, match="unknown store nope; stores: proj, other"):
        library(settings, agent=True).search("x", scope=Scope(("nope",)))


def test_an_agent_cannot_name_an_unregistered_store_folder(tmp_path: Path,
                                                          settings: Settings) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "a.py").write_text("X = 1\n")
    library(settings).index([str(loose)], store=str(tmp_path / "kept-elsewhere"))
    (settings.home / "stores.json").unlink()  # as if registered under another home
    with pytest.raises(UnknownStore):
        library(settings, agent=True).search("x", scope=Scope((str(tmp_path / "kept-elsewhere"),)))
    assert library(settings).search("x", scope=Scope((str(tmp_path / "kept-elsewhere"),))).hits


# -- read: every locator a tool prints ---------------------------------------------------

def test_locators_parse() -> None:
    assert parse_target("net/retry.py:7-8") == parse_target("net/retry.py:7\u20138")
    assert parse_target("proj:net/retry.py:7-8", frozenset({"proj"})).store == "proj"
    assert parse_target("other:net/retry.py", frozenset({"proj"})).path == "other:net/retry.py"
    assert parse_target("/abs/path.py:3").path == "/abs/path.py"
    assert parse_target("C:\\code\\x.py:3").path == "C:\\code\\x.py"
    with pytest.raises(BadTarget, match="bad line range"):
        parse_target("a.py:9-3")


@pytest.mark.parametrize("target", ["net/retry.py:7-8", "proj:net/retry.py:7-8",
                                    "{root}/net/retry.py:7-8", "{root}/net/retry.py:7"])
def test_read_accepts_every_locator_form(two: tuple[Path, Path], settings: Settings,
                                         target: str) -> None:
    proj, _ = two
    passage = library(settings, agent=True).read(target.format(root=proj),
                                                 scope=Scope(("*",)))
    assert (passage.store, passage.path, passage.start_line) == ("proj", "net/retry.py", 7)
    assert passage.lines[0] == "class RetryPolicy:"


def test_outline_lists_a_files_definitions_in_order(two: tuple[Path, Path],
                                                     settings: Settings) -> None:
    proj, _ = two
    lib = library(settings)
    near = Scope(near=(str(proj),))
    found = lib.outline("net/retry.py", scope=near)
    assert [(d.qualname, d.kind, d.start_line) for d in found] == [
        ("RetryPolicy", "class", 7), ("RetryPolicy.__init__", "method", 10),
        ("RetryPolicy.delay", "method", 15), ("call_with_retry", "function", 21)]
    assert {d.store for d in found} == {"proj"} and found[0].path == "net/retry.py"
    # any locator a tool printed names the file; its lines do not matter
    assert lib.outline("proj:net/retry.py:15-18", scope=near) == found
    assert lib.outline(str(proj / "net" / "retry.py")) == found
    with pytest.raises(BadTarget, match="not an indexed file"):
        lib.outline("net/nope.py", scope=near)


def test_read_of_a_document_shows_its_extracted_text(tmp_path: Path,
                                                     settings: Settings) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(ROOT / "fixtures" / "extract" / "hello.pdf", docs / "hello.pdf")
    shutil.copy(ROOT / "fixtures" / "extract" / "notebook.ipynb", docs / "notebook.ipynb")
    lib = library(settings)
    lib.index([str(docs)])
    pdf = lib.read("hello.pdf", scope=Scope(near=(str(docs),)))
    assert pdf.extracted and pdf.lines[0].startswith("--- page 1 ---")
    assert not any("%PDF" in line for line in pdf.lines)
    notebook = lib.read("notebook.ipynb:1-3", scope=Scope(near=(str(docs),)))
    assert notebook.lines[0].startswith("# %% [")
    hit = lib.search("quaternions", scope=Scope(near=(str(docs),))).hits[0]
    again = lib.read(hit.locator, scope=Scope(near=(str(docs),)))
    assert "\n".join(again.lines) in hit.text or hit.text.strip() in "\n".join(again.lines)


def test_read_of_a_symbol_reads_its_definition(two: tuple[Path, Path],
                                               settings: Settings) -> None:
    passage = library(settings, agent=True).read("Session.send", scope=Scope(("*",)))
    assert (passage.path, passage.symbol) == ("requests/sessions.py", "Session.send")


def test_an_absolute_path_outside_every_root_is_refused(two: tuple[Path, Path],
                                                       settings: Settings) -> None:
    with pytest.raises(BadTarget, match="not inside an indexed root"):
        library(settings, agent=True).read("/etc/passwd:1", scope=Scope(("*",)))


# -- symbols: the exact qualified name first, tests last ----------------------------------

def test_the_exact_qualified_name_ranks_above_a_suffix_match_in_a_test(
        two: tuple[Path, Path], settings: Settings) -> None:
    hits = library(settings).symbol("Session.send", scope=Scope(("other",)))
    assert [h.qualname for h in hits][:2] == ["Session.send", "RedirectSession.send"]
    plain = library(settings).symbol("send", scope=Scope(("other",)))
    assert plain[0].path == "requests/sessions.py"  # the definition outside tests first


# -- writing ----------------------------------------------------------------------------

def test_forget_and_index_take_the_store_by_any_name(two: tuple[Path, Path],
                                                     settings: Settings) -> None:
    proj, _ = two
    lib = library(settings)
    assert lib.forget(str(proj / "net"), store="proj") == 2
    assert lib.index([str(proj / "net")], store=str(proj)).indexed == 2


def test_an_agent_never_creates_a_store(tmp_path: Path, settings: Settings,
                                        two: tuple[Path, Path]) -> None:
    (tmp_path / "fresh").mkdir()
    with pytest.raises(Exception, match="not inside a served root"):
        library(settings, agent=True).index([str(tmp_path / "fresh")])
    assert not (tmp_path / "fresh" / ".semlith").exists()


# -- reads check the file as it is now (issue #26) ----------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no os.mkfifo on this platform")
def test_reading_an_indexed_file_replaced_by_a_fifo_is_refused_at_once(
        tmp_path: Path, settings: Settings) -> None:
    """A FIFO blocked the read forever; 45 of them held every worker of the daemon."""
    proj = tmp_path / "proj"
    shutil.copytree(SAMPLE, proj, ignore=shutil.ignore_patterns(".semlith"))
    lib = library(settings, agent=True)
    library(settings).index([str(proj)])
    (proj / "net" / "retry.py").unlink()
    os.mkfifo(proj / "net" / "retry.py")
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(1)  # a hang fails the test instead of stalling the suite
    reading = pool.submit(lib.read, "net/retry.py:1-5", scope=Scope(("proj",)))
    with pytest.raises(BadTarget, match=r"cannot be read now \(not a regular file \(fifo\)\)"):
        reading.result(timeout=30)
    pool.shutdown(wait=False)


def test_reading_an_indexed_file_grown_past_the_limit_is_refused(
        tmp_path: Path, settings: Settings) -> None:
    """A 3 GB sparse file in an indexed file's place was read whole (3.2 GB of memory)."""
    proj = tmp_path / "proj"
    shutil.copytree(SAMPLE, proj, ignore=shutil.ignore_patterns(".semlith"))
    library(settings).index([str(proj)])
    with open(proj / "net" / "retry.py", "r+b") as file:
        file.truncate(3 << 30)  # sparse: no disk used
    with pytest.raises(BadTarget, match=r"cannot be read now \(too large \(3221225472 bytes"):
        library(settings, agent=True).read("net/retry.py:1-5", scope=Scope(("proj",)))


def test_a_new_store_for_a_home_folder_needs_allow_system(
        tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    from semlith.errors import RefusedFolder

    home = tmp_path / "me"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "todo.md").write_text("# Todo\n\nwater the plants\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    lib = library(settings)
    with pytest.raises(RefusedFolder, match=r"home folder itself.*--allow-system"):
        lib.index([str(home)])
    assert not (home / ".semlith").exists()
    assert lib.index([str(home / "notes")]).indexed == 1  # a folder inside it is fine
    assert lib.index([str(home)], allow_system=True).indexed == 1


# -- one failing store among several (issue #26) ------------------------------------------

def test_a_store_that_cannot_be_opened_is_named_and_the_others_answer(
        two: tuple[Path, Path], settings: Settings) -> None:
    _, other = two
    (other / ".semlith" / "store.db").write_bytes(b"not a database at all" * 100)
    answer = library(settings).search("retry backoff", scope=Scope(("*",)))
    assert {h.store for h in answer.hits} == {"proj"}
    assert len(answer.failed) == 1 and answer.failed[0].startswith("other: ")
    assert answer.notes == [f"store {answer.failed[0]} (not searched)"]
    found = library(settings).grep("retry", scope=Scope(("*",)))  # one wording (#20)
    assert found.failed == answer.failed and found.notes == answer.notes


def test_a_store_failing_mid_search_is_named_and_the_others_answer(
        two: tuple[Path, Path], settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon's case: its stores are open, and one fails on the query path (a Milvus
    engine down, a damaged file): the search answered only an error, after 211 s."""
    import sqlite3

    from semlith.base.home import registered_stores
    from semlith.local import Engine
    from semlith.local.fleet import Fleet

    engine = Engine(settings, lambda n: HashEmbedder(n))
    fleet = Fleet(engine, follow_registry=False)
    fleet.open(registered_stores(settings.home))
    fleet.model_ready.set()
    try:
        broken = fleet.held["other"].store

        def fail(*args: object) -> object:
            raise sqlite3.DatabaseError("database disk image is malformed")
        monkeypatch.setattr(broken.catalog, "match", fail)
        lib = LocalLibrary(settings, engine=engine, source=fleet, agent=True)
        answer = lib.search("deployment retry backoff", scope=Scope(("*",)))
        assert answer.hits and {h.store for h in answer.hits} == {"proj"}
        assert answer.failed == ("other: database disk image is malformed",)
        with pytest.raises(sqlite3.DatabaseError):  # the only store asked for: its error
            lib.search("deployment retry backoff", scope=Scope(("other",)))
    finally:
        fleet.close()
        engine.close()


# -- faults reported as faults (issue #25) --------------------------------------------

@pytest.fixture
def db_project(tmp_path: Path, settings: Settings) -> Path:
    """A project whose one definition, `Db`, resembles the store's own `store.db`."""
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    (root / "src" / "Db.cs").write_text(
        "public class Db\n{\n    public int Open() { return 1; }\n}\n")
    library(settings).index([str(root)])
    return root


@pytest.mark.parametrize("target", [".semlith/store.db", "store.db", "db", "DB", "src/db",
                                    "Other.Open", "Db.open"])
def test_a_read_of_what_is_not_indexed_is_refused(db_project: Path, settings: Settings,
                                                  target: str) -> None:
    for agent in (False, True):
        with pytest.raises(BadTarget, match="is neither an indexed file nor a symbol"):
            library(settings, agent=agent).read(target, scope=Scope(("app",)))


def test_a_read_by_the_exact_name_still_answers(db_project: Path, settings: Settings) -> None:
    lib = library(settings, agent=True)
    passage = lib.read("Db", scope=Scope(("app",)))
    assert (passage.path, passage.symbol) == ("src/Db.cs", "Db")
    assert lib.read("Db.Open", scope=Scope(("app",))).symbol == "Db.Open"
    assert lib.read("src/Db.cs", scope=Scope(("app",))).lines[0] == "public class Db"


@pytest.mark.parametrize("path", ["*", "src/*", "src/Nope.cs", "missing"])
def test_a_forget_that_matches_nothing_is_an_error(db_project: Path, settings: Settings,
                                                   path: str) -> None:
    lib = library(settings)
    with pytest.raises(BadTarget, match=r"matches no indexed file of store 'app'"):
        lib.forget(str(db_project / path))
    assert [f.path for f in lib.files(scope=Scope(("app",)))] == ["src/Db.cs"]
    with pytest.raises(BadTarget, match="matches no indexed file"):
        library(settings, agent=True).forget(path, store="app")
    assert lib.forget(str(db_project / "src")) == 1
