"""The Milvus backend (issue #16) against the real engine: milvus-lite's C++ server on a
free loopback port, one per module, one collection per test."""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import stat
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import numpy as np
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from semlith.base.settings import Settings
from semlith.errors import BackendError, BadTarget, ModelError, UnknownSymbol
from semlith.local import LocalLibrary
from semlith.store import Store
from semlith.store.catalog import CATALOG_NAME
from semlith.store.milvus.check import local_ids
from semlith.store.milvus.space import MilvusSpace
from semlith.store.milvus.target import MilvusTarget, among, milvus_filter
from semlith.types import Filters, Scope
from tests.conftest import RecordingFactory
from tests.daemon_util import SAMPLE, semlith, start_daemon, wait_model
from tests.milvus_util import MilvusServer, free_port

ROOT = Path(__file__).resolve().parents[2]
_names = itertools.count()
EVERY = Scope(("*",))


@pytest.fixture
def server(milvus_server: MilvusServer) -> MilvusServer:
    return milvus_server


@pytest.fixture
def backend(server: MilvusServer) -> str:
    """A collection of its own for each test."""
    return f"{server.uri}/t{next(_names)}_{os.getpid()}"


def _library(settings: Settings) -> LocalLibrary:
    return LocalLibrary(settings, embedder_factory=RecordingFactory())


def _project(tmp: Path, name: str = "sample") -> Path:
    root = tmp / name
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    return root


def _indexed(tmp_path: Path, settings: Settings, backend: str,
             name: str = "sample") -> tuple[LocalLibrary, Path]:
    """A copy of the sample project indexed into `backend`: (the library, its root)."""
    root = _project(tmp_path, name)
    library = _library(settings)
    library.index([str(root)], model="test-hash", backend=backend)
    return library, root


def _rows(store: Store) -> tuple[int, set[int]]:
    """(rows of the store's repo in Milvus, their local ids)."""
    assert store.vectors is not None
    ids = set(local_ids(store.vectors))
    return store.vectors.stats()["exact_records"], ids


def _catalog_ids(store: Store) -> set[int]:
    return {int(i) for i in store.catalog.vector_ids("text")}


# -- targets and filters (no engine) ------------------------------------------------------


def test_targets_parse_and_print_without_credentials() -> None:
    target = MilvusTarget.parse("milvus://db.example:19530/code?repo=api&consistency=bounded"
                                "&index=hnsw")
    assert (target.uri, target.collection, target.repo, target.consistency, target.index) == (
        "http://db.example:19530", "code", "api", "Bounded", "HNSW")
    assert MilvusTarget.parse(str(target)) == target
    assert str(MilvusTarget.parse("milvus+https://h:443/c").named(model="m", repo="r")) == (
        "milvus+https://h:443/c?repo=r")
    lite = MilvusTarget.parse("milvus+lite:///data/m.db").named(model="all-MiniLM-L6-v2-int8",
                                                                repo="app")
    assert (lite.uri, lite.collection) == ("/data/m.db", "semlith_all_minilm_l6_v2_int8")
    assert MilvusTarget.parse(str(lite)) == lite
    for bad, says in [("http://h:1/c", "unknown backend"),
                      ("milvus://user:pw@h:1/c", "SEMLITH_MILVUS_TOKEN"),
                      ("milvus://h/c", "host and a port"),
                      ("milvus://h:1/c?shards=2", "unknown backend option"),
                      ("milvus://h:1/c?consistency=often", "consistency"),
                      ("milvus+lite://rel.db", "absolute path")]:
        with pytest.raises(BackendError, match=says):
            MilvusTarget.parse(bad)
    with pytest.raises(BackendError, match="letters, digits"):
        MilvusTarget.parse("milvus://h:1/bad-name").named(model="m", repo="r")


def test_filters_become_expressions() -> None:
    assert milvus_filter('a"b', None) == 'repo == "a\\"b"'
    expr = milvus_filter("r", Filters(paths=("src/", "!*_test.py"), exts=("PY",),
                                      langs=("!markdown",)))
    assert expr == (
        'repo == "r" and (path like "src" or path like "src/%" or path like "%/src"'
        ' or path like "%/src/%") and not (path like "%\\\\_test.py"'
        ' or path like "%/%\\\\_test.py") and ext in [".py"] and lang not in ["markdown"]')
    with pytest.raises(ValueError, match=r"\* and \? only"):
        milvus_filter("r", Filters(paths=("src/[ab]*.py",)))


# -- the engine ----------------------------------------------------------------------------


def test_index_and_search_answer_like_the_local_engine(tmp_path: Path, settings: Settings,
                                                       backend: str) -> None:
    local_root, remote_root = _project(tmp_path, "local"), _project(tmp_path, "remote")
    library = _library(settings)
    assert library.index([str(local_root)], model="test-hash").indexed == 9
    report = library.index([str(remote_root)], model="test-hash", backend=backend)
    assert (report.indexed, report.created) == (9, True)
    for query, filters in [("retry failed requests with backoff", Filters()),
                           ("hash a password", Filters()),
                           ("how is the cache invalidated", Filters(exts=("ts",))),
                           ("deployment steps", Filters(paths=("docs/",))),
                           ("token", Filters(langs=("go",)))]:
        by_store = {name: [(h.path, h.start_line) for h in library.search(
            query, k=5, filters=filters, scope=Scope((name,))).hits]
            for name in ("local", "remote")}
        assert by_store["remote"], query
        # The dense lists are the same (exact inner products on both sides); BM25 differs
        # in its analyzer, so the best hit agrees and most of the rest does.
        assert by_store["remote"][0] == by_store["local"][0], query
        overlap = set(by_store["remote"]) & set(by_store["local"])
        assert len(overlap) >= min(len(by_store["local"]), 3), query
        for path, _ in by_store["remote"]:
            if filters.exts:
                assert path.endswith(".ts")
            if filters.paths:
                assert path.startswith("docs/")
            if filters.langs:
                assert path.endswith(".go")
    library.close()


@pytest.mark.skipif(sys.platform == "win32", reason="milvus-lite has no Windows build")
def test_the_embedded_engine_is_a_path(tmp_path: Path, settings: Settings) -> None:
    """`milvus+lite:///PATH.db`: the same engine inside this process, no server."""
    library, _ = _indexed(tmp_path, settings, f"milvus+lite://{tmp_path / 'lite.db'}")
    assert library.search("retry with backoff", k=1, scope=EVERY).hits[0].path == "net/retry.py"
    (stats,) = library.stats()
    assert stats.shards["backend"] == (f"milvus+lite://{tmp_path / 'lite.db'}"
                                       "?collection=semlith_test_hash&repo=sample")
    assert stats.exact_records == 15
    library.close()
    if os.name == "posix":  # owner-only, like every store file (issue #45)
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.glob("*lite.db*")}
        assert modes == {"lite.db": 0o600, ".lite.db.lock": 0o600}, modes


def test_only_a_new_stores_first_run_inserts(tmp_path: Path, settings: Settings,
                                             backend: str) -> None:
    """Insert skips the key check that makes upserts slow, and is safe only while the
    repo has no row: from a new store's creation to the end of its first run."""
    root = _project(tmp_path)
    store = Store.create(root / ".semlith", model="test-hash", dim=64, settings=settings,
                         backend=backend)
    assert store.vectors is not None and store.vectors.first_load
    store.close()
    library = _library(settings)
    library.index([str(root)])  # the first run, on a store made before it
    with Store.open(root / ".semlith", settings=settings, writable=True) as reopened:
        assert reopened.vectors is not None and not reopened.vectors.first_load
    library.index([str(root)], model="test-hash")
    (stats,) = library.stats()
    assert stats.exact_records == stats.chunks == 15
    library.close()


def test_stats_report_the_remote_side(tmp_path: Path, settings: Settings,
                                      backend: str) -> None:
    library, _ = _indexed(tmp_path, settings, backend)
    (stats,) = library.stats()
    assert stats.exact_records == stats.chunks == 15
    assert stats.shards["collection_rows"] == 15
    assert stats.shards["backend"].startswith("milvus://127.0.0.1:")
    assert stats.shards["repo"] == "sample"
    library.close()


def test_changed_and_deleted_files_leave_no_rows_behind(tmp_path: Path, settings: Settings,
                                                        backend: str) -> None:
    library, root = _indexed(tmp_path, settings, backend)
    (root / "net" / "retry.py").write_text("def jitter(delay):\n    return delay * 1.5\n")
    (root / "storage" / "cache.ts").unlink()
    report = library.index([str(root)])
    assert (report.indexed, report.removed) == (1, 1)
    library.close()
    with Store.open(root / ".semlith", settings=settings) as store:
        count, ids = _rows(store)
        assert count == len(ids) == store.catalog.chunk_count()
        assert ids == _catalog_ids(store)
    library = _library(settings)
    hits = library.search("cache invalidation", k=20, scope=EVERY).hits
    assert all(h.path != "storage/cache.ts" for h in hits)
    assert any(h.path == "net/retry.py" and "jitter" in h.text
               for h in library.search("jitter delay", k=3, scope=EVERY).hits)
    library.close()


def test_a_run_killed_mid_index_resumes_with_nothing_doubled(tmp_path: Path,
                                                             settings: Settings,
                                                             backend: str) -> None:
    root = tmp_path / "big"
    for n in range(30):
        folder = root / f"pkg{n % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{n}.py").write_text("".join(
            f"def task_{n}_{f}(items):\n    return [i * {f} for i in items]\n\n\n"
            for f in range(6)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "tests.milvus_indexer", str(root), backend,
                             "20"], env=env, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.strip() == "stalled":
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    with Store.open(root / ".semlith", settings=settings) as store:
        written, _ = _rows(store)
    assert written > 0  # rows reached Milvus before the kill
    done = subprocess.run([sys.executable, "-m", "tests.milvus_indexer", str(root), backend,
                           "0"], env=env, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    with Store.open(root / ".semlith", settings=settings) as store:
        assert store.stats()["pending_files"] == 0
        count, ids = _rows(store)
        assert count == len(ids) == store.catalog.chunk_count() >= 30
        assert ids == _catalog_ids(store)
        assert store.recovered.get("milvus_rows_removed", 0) == 0  # a reader does not repair


def test_two_indexers_share_one_collection(tmp_path: Path, settings: Settings,
                                           backend: str) -> None:
    one, two = _project(tmp_path, "one"), _project(tmp_path, "two")
    (two / "extra.py").write_text("def zanzibar():\n    return 'only the second repository'\n")

    def run(root: Path) -> None:
        library = _library(settings)
        library.index([str(root)], model="test-hash", backend=backend)
        library.close()

    with ThreadPoolExecutor(2) as pool:  # result() re-raises what a run raised
        for future in [pool.submit(run, root) for root in (one, two)]:
            future.result(timeout=120)
    library = _library(settings)
    stats = {s.name: s for s in library.stats()}
    assert (stats["one"].exact_records, stats["two"].exact_records) == (15, 16)
    assert stats["one"].shards["collection_rows"] == 31
    # Several stores merge by standing (the nearest chunk's cosine): the test model has no
    # calibrated floor, so the question says more than one word a hash could collide on.
    hits = library.search("zanzibar only the second repository", k=3, scope=EVERY).hits
    assert (hits[0].store, hits[0].path) == ("two", "extra.py")
    # Each store reads only its repo's rows (chunk ids repeat across repos).
    assert not [h for h in library.search("zanzibar", k=20, scope=Scope(("one",))).hits
                if "zanzibar" in h.text.lower()]
    library.close()
    # A new store of repo "one" owns that repo's rows: the old ones go, "two" stays.
    shutil.rmtree(one / ".semlith")
    (one / "auth" / "tokens.go").unlink()
    library = _library(settings)
    library.index([str(one)], model="test-hash", backend=backend)
    stats = {s.name: s for s in library.stats()}
    assert (stats["one"].exact_records, stats["two"].exact_records) == (13, 16)
    assert stats["one"].shards["collection_rows"] == 29
    library.close()


def test_many_searches_at_once_while_an_indexer_writes(tmp_path: Path, settings: Settings,
                                                       backend: str) -> None:
    library, _ = _indexed(tmp_path, settings, backend, "first")
    second = _project(tmp_path, "second")
    first_only = Scope(("first",))
    expected = library.search("retry with backoff", k=3, scope=first_only).hits
    stop = threading.Event()

    def searching() -> int:
        reader = _library(settings)
        rounds = 0
        try:
            while not stop.is_set():
                hits = reader.search("retry with backoff", k=3, scope=first_only).hits
                assert [(h.path, h.start_line) for h in hits] == [
                    (h.path, h.start_line) for h in expected]
                rounds += 1
        finally:
            reader.close()
        return rounds

    with ThreadPoolExecutor(8) as pool:
        readers = [pool.submit(searching) for _ in range(8)]
        try:
            writer = _library(settings)
            writer.index([str(second)], model="test-hash", backend=backend)
            writer.close()
        finally:
            stop.set()
        assert all(future.result(timeout=60) >= 1 for future in readers)
    library.close()


def test_a_store_keeps_its_backend_and_a_collection_its_model(tmp_path: Path,
                                                              settings: Settings,
                                                              backend: str) -> None:
    library, root = _indexed(tmp_path, settings, backend)
    other = backend.rsplit("/", 1)[0] + "/elsewhere"
    with pytest.raises(BackendError, match="keeps its vectors in milvus://"):
        library.index([str(root)], backend=other)
    local = _project(tmp_path, "local")
    library.index([str(local)], model="test-hash")
    with pytest.raises(BackendError, match="its own folder"):
        library.index([str(local)], backend=backend)
    # A collection holds one model's vectors: another model (dimension) is refused.
    with pytest.raises(ModelError, match="not chunks of"):
        MilvusSpace(MilvusTarget.parse(backend).named(model="other", repo="x"), model="other",
                    dim=32, rows=lambda ids: [])
    library.close()


def test_an_unreachable_engine_is_one_line_without_the_token(
        tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch,
        backend: str) -> None:
    monkeypatch.setenv("SEMLITH_MILVUS_TOKEN", "root:s3cret-token")
    library = _library(settings)
    with pytest.raises(BackendError) as caught:
        library.index([str(_project(tmp_path))], model="test-hash",
                      backend=f"milvus://127.0.0.1:{free_port()}/nothing")
    message = str(caught.value)
    assert "cannot reach Milvus" in message and "\n" not in message
    assert "s3cret" not in message
    # The failed first run left a catalog without a model: no store yet, so the next
    # run with a reachable engine makes it (it used to refuse: "keeps its vectors in
    # its own folder").
    folder = tmp_path / "sample" / ".semlith"
    assert (folder / CATALOG_NAME).is_file() and not Store.exists(folder)
    report = library.index([str(tmp_path / "sample")], model="test-hash", backend=backend)
    assert report.created and report.indexed > 0
    assert library.search("retry backoff", scope=Scope((str(folder),))).hits
    library.close()


def test_fetch_returns_the_stored_vectors(tmp_path: Path, settings: Settings,
                                          backend: str) -> None:
    library, root = _indexed(tmp_path, settings, backend)
    library.close()
    with Store.open(root / ".semlith", settings=settings) as store:
        ids = np.array([*sorted(_catalog_ids(store))[:4], 10**9], dtype=np.uint64)
        found, vectors = store.vectors.fetch(ids)
        assert found.tolist() == [True] * 4 + [False]
        assert vectors.shape == (4, 64)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)


@pytest.mark.slow
@pytest.mark.model
def test_the_daemon_serves_a_milvus_store_and_a_mirror_over_mcp(
        tmp_path: Path, server: MilvusServer) -> None:
    backend = f"{server.uri}/served"
    # Another machine indexes "other" and keeps its files; this one only attaches it.
    other = _project(tmp_path / "elsewhere", "other")
    done = semlith(tmp_path / "other-home", "index", str(other), "--backend", backend, "-q")
    assert done.returncode == 0, done.stderr
    shutil.rmtree(other)
    home = tmp_path / "home"
    done = semlith(home, "index", str(_project(tmp_path)), "--backend", backend, "--quiet")
    assert done.returncode == 0, done.stderr
    attached = semlith(home, "attach", f"{backend}?repo=other")
    assert attached.returncode == 0, attached.stderr
    assert "attached 'other'" in attached.stdout
    shown = semlith(home, "stats", "--store", "sample")
    assert shown.returncode == 0, shown.stderr
    assert f"backend    {backend}?repo=sample: 15 rows of repo 'sample', 30 in" in shown.stdout
    daemon = start_daemon(home, "--no-watch")
    try:
        wait_model(daemon)

        async def call(tool: str, arguments: dict[str, object]) -> str:
            http = create_mcp_http_client(headers=daemon.headers)
            async with http, Client(streamable_http_client(daemon.url + "/mcp",
                                                           http_client=http)) as client:
                result = await client.call_tool(tool, arguments)
                return str(result.content[0].text)

        answers = []
        for store in ("sample", "other"):
            answer = anyio.run(call, "semlith_search", {
                "query": "retry failed requests with backoff", "k": 3, "stores": [store]})
            first, where = answer.splitlines()[:2]
            assert first == "net/retry.py"
            answers.append(where.split(" · ")[0])
        assert answers[0] == answers[1]  # the mirror answers as the store it mirrors
        stats = anyio.run(call, "semlith_stats", {"stores": ["*"]})
        assert f"vectors in {backend}?repo=sample" in stats
        assert f"vectors in {backend}?repo=other" in stats
    finally:
        assert daemon.stop() == 0


def test_a_mirror_searches_a_repo_without_its_files(tmp_path: Path, settings: Settings,
                                                    backend: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # A mirror has no definitions table: its hits are the chunks found, never widened to
    # whole definitions (search/whole.py); the indexer's are compared with that off.
    monkeypatch.setenv("SEMLITH_RANKING", "whole=0")
    library, root = _indexed(tmp_path, Settings.load(), backend, "origin")
    query, origin = "retry failed requests with backoff", Scope(("origin",))
    expected = [h.locator for h in library.search(query, k=5, scope=origin).hits]
    filtered = [h.locator for h in library.search("cache", k=5, scope=origin,
                                                  filters=Filters(exts=("ts",))).hits]
    library.close()
    shutil.rmtree(root)  # another machine: neither the files nor the catalog
    monkeypatch.setenv("SEMLITH_HOME", str(tmp_path / "reader-home"))
    reader = _library(Settings.load())
    with pytest.raises(BackendError, match="needs the collection and the repo"):
        reader.attach(backend)
    entry = reader.attach(f"{backend}?repo=origin")
    assert (entry.name, entry.model) == ("origin", "test-hash")
    assert reader.attach(f"{backend}?repo=origin").folder == entry.folder  # once
    hits = reader.search(query, k=5, scope=origin).hits
    assert [h.locator for h in hits] == expected
    assert [h.locator for h in reader.search("cache", k=5, scope=origin,
                                             filters=Filters(exts=("ts",))).hits] == filtered
    # What only the indexer's machine knows is said, not answered empty.
    for listing in (reader.files, reader.skipped):
        with pytest.raises(BadTarget, match=r"'origin' is a mirror of .* on the machine"):
            listing(scope=origin)
    # Its code graph is on the machine that indexes it (#22): one line, for every command.
    for graph in (lambda: reader.neighbors("RetryPolicy", scope=origin),
                  lambda: reader.impact("RetryPolicy", scope=origin),
                  lambda: reader.path("RetryPolicy", "RetryPolicy", scope=origin)):
        with pytest.raises(UnknownSymbol, match=r"^store 'origin' is a mirror without a "
                                                r"catalog here: its code graph lives on the "
                                                r"machine that indexes it$"):
            graph()
    # A file reads back as its chunks hold it.
    passage = reader.read(hits[0].locator)
    assert passage.lines == tuple(hits[0].text.split("\n"))
    # Definitions by name come from the rows' symbols.
    assert any(h.symbol == "RetryPolicy" for h in reader.search("RetryPolicy", k=3,
                                                                scope=origin).hits)
    (stats,) = reader.stats(scope=origin)
    assert stats.chunks == stats.exact_records == 15
    for write in (lambda: reader.index([], store="origin"),
                  lambda: reader.forget(str(tmp_path), store="origin")):
        with pytest.raises(BadTarget, match="is a mirror of milvus://"):
            write()
    reader.close()
    # A mirror left open by a killed daemon repairs nothing: the rows are its indexer's.
    folder = Path(entry.folder)
    killed = Store.open(folder, settings=Settings.load(), writable=True)
    killed.catalog.close()
    assert killed.lock is not None
    killed.lock.release()
    with Store.open(folder, settings=Settings.load(), writable=True) as store:
        assert store.recovered.get("milvus_rows_removed", 0) == 0
        assert store.vectors.stats()["exact_records"] == 15
        with pytest.raises(PermissionError, match="only its own indexer"):
            store.vectors.remove(np.array([1], np.uint64))


# -- --path filters as `dirs` lookups (issue #25) -------------------------------------------

DEEP_PATH = "/".join(f"d{i}" for i in range(60)) + "/bottom.py"  # too deep for the array


def test_dirs_filters_select_what_the_local_engine_selects(tmp_path: Path, settings: Settings,
                                                           backend: str) -> None:
    from semlith.store.milvus.dirs import DEEP, dirs_key, path_dirs
    from semlith.store.query import Selection, selected_ids

    assert path_dirs(DEEP_PATH) == [DEEP]
    assert dirs_key("src/net/") == "src/net" and dirs_key("/src") == "/src"
    assert dirs_key("a/b/c/d/e") is None and dirs_key("src/*.py") is None
    root = tmp_path / "tree"
    for rel in ["src/net/retry.py", "src/net/sub/deep.py", "lib/src/net/copy.py",
                "net/top.py", "docs/net", "src/netlike/x.py", "a_b/c.py", DEEP_PATH]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"def f():\n    return {rel!r}\n")
    library = _library(settings)
    library.index([str(root)], model="test-hash", backend=backend)
    store = Store.open(root / ".semlith", settings=settings)
    try:
        assert store.vectors is not None and store.vectors.has_dirs and store.vectors._deep
        # Without a deep row in the repo, a literal --path is the lookup alone.
        assert milvus_filter("r", Filters(paths=("src",)), dirs=True, deep=False) == \
            'repo == "r" and (array_contains(dirs, "src"))'
        paths = {int(i): p for i, p in store.catalog.db.execute(
            "SELECT c.id, f.path FROM chunks c JOIN files f ON f.id = c.file_id")}
        query = np.ones(store.dim, np.float32) / np.sqrt(store.dim)
        for pattern in ["src/net", "/src/net", "net", "/net", "net/", "src", "docs/net",
                        "sub/deep.py", "retry.py", "d3/d4", "/d0/d1", "bottom.py",
                        "d10/d11/d12/d13/d14", "src/*.py", "a_b"]:
            filters = Filters(paths=(pattern,))
            local = {paths[int(i)] for i in selected_ids(store.catalog, Selection.of(filters))}
            found = {paths[i] for i, _ in store.vectors.search(query, 100, filters=filters)}
            assert found == local, pattern
            assert ("array_contains" in milvus_filter("r", filters, dirs=True)) == \
                (dirs_key(pattern) is not None), pattern
        # An exclusion stays a LIKE (milvus-lite refuses `not array_contains`, and any
        # `not`: `!` patterns fail on lite either way; docs/scale-out.md).
        assert "array_contains" not in milvus_filter("r", Filters(paths=("!src",)),
                                                     dirs=True)
    finally:
        store.close()
        library.close()


def test_verify_repairs_rows_milvus_lost_doubled_or_kept(
        tmp_path: Path, settings: Settings, backend: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`semlith index --verify`: the rows against the catalog, repaired (issue #25)."""
    import semlith.store.milvus.check

    monkeypatch.setattr(semlith.store.milvus.check, "PAGE", 7)  # rows read in many pages
    library, root = _indexed(tmp_path, settings, backend)
    store = Store.open(root / ".semlith", settings=settings, writable=True)
    try:
        space = store.vectors
        assert space is not None
        live = sorted(_catalog_ids(store))
        lost, doubled = live[:3], live[3]
        space.remove(np.asarray(lost, np.uint64))  # acknowledged, then lost
        (export,) = space._rows([doubled])
        vector = space.fetch(np.asarray([doubled], np.uint64))[1][0]
        twin = {**space._row(export, vector), "pk": 1}  # the same chunk under another key
        stray = {**space._row(export, vector), "pk": 2, "local_id": max(live) + 1000}
        space.call("upsert", "upsert", space.name, [twin, stray])
    finally:
        store.close()
    report = library.index([str(root)], verify=True)
    assert report.verified == {"milvus_rows_checked": len(live) - 3 + 2,
                               "milvus_rows_removed": 3, "milvus_rows_missing": 4,
                               "chunks_redone": 4}
    assert report.indexed >= 2 and "verified: milvus rows checked" in report.summary()
    store = Store.open(root / ".semlith", settings=settings)
    try:
        count, ids = _rows(store)
        assert ids == _catalog_ids(store) and count == len(ids)  # none lost, none doubled
    finally:
        store.close()
    again = library.index([str(root)], verify=True)
    assert again.verified["milvus_rows_removed"] == again.verified["chunks_redone"] == 0
    assert again.indexed == 0
    library.close()


@pytest.mark.parametrize(("ids", "expr"), [
    ([5, 1, 2, 3], " and local_id in [1, 2, 3, 5]"),
    (list(range(100, 140)), " and (local_id >= 100 and local_id <= 139)"),
    ([*range(20), 52, 50, *range(200, 230)],
     " and (local_id in [50, 52] or ((local_id >= 0 and local_id <= 19)"
     " or (local_id >= 200 and local_id <= 229)))"),
    ([], " and local_id in []")])
def test_chunk_ids_go_as_runs_and_a_list(ids: list[int], expr: str) -> None:
    assert among(np.asarray(ids, np.uint64)) == expr


def test_many_runs_nest_as_a_balanced_or() -> None:
    ids = np.concatenate([np.arange(k * 100, k * 100 + 30) for k in range(1000)])
    expr = among(ids.astype(np.uint64))
    assert expr.count("local_id >=") == 1000 and "local_id in" not in expr
    depth = max_depth = 0
    for ch in expr:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        max_depth = max(max_depth, depth)
    assert max_depth <= 12  # log2(1000) levels of `or`, plus each range's own


def test_a_path_filter_answers_the_same_through_chunk_ids_and_the_dirs_lookup(
        tmp_path: Path, settings: Settings, backend: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A `--path` the catalog resolves to a small share of the chunks goes to Milvus as
    their ids (`local_id in [...]`), a larger one as `array_contains(dirs, ...)`: the
    same hits either way (issue #25)."""
    from semlith.store.milvus import corpus as milvus_corpus

    library, _ = _indexed(tmp_path, settings, backend)
    asked: list[int] = []
    real = milvus_corpus.q.selected_ids
    monkeypatch.setattr(milvus_corpus.q, "selected_ids",
                        lambda catalog, sel: asked.append(1) or real(catalog, sel))
    cases = [("retry with backoff", Filters(paths=("net",))),
             ("deployment steps", Filters(paths=("/docs",))),
             ("cache", Filters(paths=("storage/cache.ts", "net/"), exts=("ts",)))]

    def answers(share: float) -> list[list[tuple[str, int, float]]]:
        monkeypatch.setattr(milvus_corpus, "ID_LIST_MAX_SHARE", share)
        return [[(h.path, h.start_line, round(h.score, 6)) for h in library.search(
            query, k=10, filters=filters, scope=EVERY).hits] for query, filters in cases]

    by_dirs = answers(0)
    assert asked == []
    by_ids = answers(1.0)
    assert len(asked) == 2 * len(cases)  # the dense and the keyword list of each
    assert by_ids == by_dirs and all(by_ids)
    # Runs of consecutive ids go as ranges (a balanced `or` of them beside the rest).
    from semlith.store.milvus import target as milvus_target
    monkeypatch.setattr(milvus_target, "RUN_IDS", 2)
    assert answers(1.0) == by_dirs
    assert all(p.startswith("net/") for p, _, _ in by_ids[0])
    assert all(p == "storage/cache.ts" for p, _, _ in by_ids[2])
    # An exclusion beside a lookup is an expression milvus-lite 2.5.1 refuses ("unsupported
    # expr proto node"); as chunk ids it is answered.
    hits = library.search("token", k=10, filters=Filters(paths=("auth", "!auth/password.rs")),
                          scope=EVERY).hits
    assert hits and {h.path for h in hits} <= {"auth/tokens.go"}
    library.close()


def test_a_mirror_ranks_test_code_in_a_source_file_as_its_indexer_does(
        tmp_path: Path, settings: Settings, backend: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The chunks of a Rust `#[cfg(test)] mod tests` are of kind `test`; a mirror (no
    catalog) reads that kind from the engine's rows (`places`) for its ranking."""
    cases = "".join(f"""
    #[test]
    fn parse_header_value_case_{n}() {{
        let header = "a; b; parse; header; value {n}";
        assert_eq!(parse_header(header).len(), 5, "parse header value");
    }}
""" for n in range(12))
    root = tmp_path / "origin"
    (root / "src").mkdir(parents=True)
    (root / "src" / "header.rs").write_text(
        "/// Parse a header value into its parts.\n"
        "pub fn parse_header(value: &str) -> Vec<&str> {\n"
        "    value.split(';').map(str::trim).collect()\n}\n\n"
        f"#[cfg(test)]\nmod tests {{\n    use super::*;\n{cases}}}\n")
    monkeypatch.setenv("SEMLITH_RANKING", "whole=0")  # a mirror shows the chunks found
    library = _library(Settings.load())
    library.index([str(root)], model="test-hash", backend=backend)
    query, origin = "parse a header value", Scope(("origin",))
    expected = [(h.locator, h.kind) for h in library.search(query, k=5, scope=origin).hits]
    library.close()
    assert expected[0] == ("src/header.rs:1-4", "function")
    assert {kind for _, kind in expected[1:]} == {"test"}
    shutil.rmtree(root)
    monkeypatch.setenv("SEMLITH_HOME", str(tmp_path / "reader-home"))
    reader = _library(Settings.load())
    reader.attach(f"{backend}?repo=origin")
    assert [(h.locator, h.kind) for h in reader.search(query, k=5, scope=origin).hits] \
        == expected
    reader.close()
