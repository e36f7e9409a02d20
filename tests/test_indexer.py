"""The indexing pipeline through the library API, with a deterministic embedder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.local import LocalLibrary
from semlith.store import Store
from semlith.types import Filters, IndexReport, Scope
from tests.conftest import HashEmbedder, RecordingFactory

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "sample"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    return root


def index(root: Path, settings: Settings, factory: RecordingFactory | None = None,
          paths: list[Path] | None = None, **kwargs: object) -> IndexReport:
    library = LocalLibrary(settings, embedder_factory=factory or RecordingFactory())
    return library.index([str(p) for p in paths or [root]], **kwargs)  # type: ignore[arg-type]


def find(root: Path, settings: Settings, query: str, **filters: tuple[str, ...]) -> list[str]:
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    answer = library.search(query, k=5, filters=Filters(**filters),
                            scope=Scope((str(root / ".semlith"),)))
    return [h.path for h in answer.hits]


def test_index_then_search(tree: Path, settings: Settings) -> None:
    report = index(tree, settings)
    assert report.indexed == 9 and report.chunks > 9 and report.complete
    assert find(tree, settings, "exponential backoff jitter")[0] == "net/retry.py"
    assert find(tree, settings, "RetryPolicy")[0] == "net/retry.py"


def test_unchanged_run_loads_no_model(tree: Path, settings: Settings) -> None:
    index(tree, settings)
    counting = RecordingFactory()
    report = index(tree, settings, counting)
    assert (report.indexed, report.unchanged, counting.loads) == (0, 9, 0)


def test_touched_but_identical_file_is_not_reembedded(tree: Path, settings: Settings) -> None:
    index(tree, settings)
    os.utime(tree / "net/retry.py", ns=(1, 1))
    counting = RecordingFactory()
    assert index(tree, settings, counting).unchanged == 9 and counting.chunks == 0


def test_changed_file_is_reindexed_and_old_text_is_gone(tree: Path, settings: Settings) -> None:
    index(tree, settings)
    (tree / "net/retry.py").write_text("def circuit_breaker():\n    return 'open'\n")
    counting = RecordingFactory()
    report = index(tree, settings, counting)
    assert report.indexed == 1 and counting.chunks == 1
    assert "net/retry.py" not in find(tree, settings, "exponential backoff jitter")
    assert find(tree, settings, "circuit_breaker")[0] == "net/retry.py"


def test_deleted_file_is_pruned(tree: Path, settings: Settings) -> None:
    index(tree, settings)
    (tree / "web/router.js").unlink()
    assert index(tree, settings).removed == 1
    assert "web/router.js" not in find(tree, settings, "router match handler")


def test_moved_file_is_not_reembedded(tree: Path, settings: Settings) -> None:
    index(tree, settings)
    (tree / "net/retry.py").rename(tree / "retry_moved.py")
    counting = RecordingFactory()
    report = index(tree, settings, counting)
    assert (report.moved, report.removed, counting.chunks) == (1, 0, 0)
    assert find(tree, settings, "RetryPolicy")[0] == "retry_moved.py"


def test_copied_file_reuses_vectors(tree: Path, settings: Settings) -> None:
    index(tree, settings)
    shutil.copy(tree / "net/retry.py", tree / "net/retry_copy.py")
    counting = RecordingFactory()
    report = index(tree, settings, counting)
    assert (report.copied, report.moved, counting.chunks) == (1, 0, 0)
    assert "1 copied" in report.summary() and " moved" not in report.summary()
    assert set(find(tree, settings, "RetryPolicy")[:2]) == {"net/retry.py",
                                                            "net/retry_copy.py"}


def test_bad_input_is_skipped_with_reasons(tree: Path, settings: Settings) -> None:
    (tree / "bad.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (tree / "blob.txt").write_bytes(b"\x00\x01binary")
    (tree / "latin1.py").write_bytes(b"# caf\xe9 au lait\nprint('ok')\n")
    (tree / ".gitignore").write_text("ignored/\n")
    (tree / "ignored").mkdir()
    (tree / "ignored/x.py").write_text("print()\n")
    report = index(tree, settings)
    assert report.complete
    store = Store.open(tree / ".semlith", settings=settings)
    skipped = store.catalog.skipped()
    assert skipped["bad.pdf"].reason == "unreadable" and "pdf" in skipped["bad.pdf"].detail.lower()
    assert skipped["blob.txt"].reason == "binary"
    assert skipped["ignored/"].reason == "ignored by .gitignore"
    assert store.catalog.file("latin1.py") is not None
    store.close()
    # An untouched binary is not read again; it stays skipped.
    assert index(tree, settings).skipped == report.skipped


def test_unreadable_folder_is_skipped(tree: Path, settings: Settings,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Denied at the OS call: CI runs as root, where chmod 000 stops nothing."""
    locked = tree / "locked"
    locked.mkdir()
    (locked / "secret.py").write_text("x = 1\n")
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if os.fspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    report = index(tree, settings)
    assert report.complete and report.indexed == 9
    store = Store.open(tree / ".semlith", settings=settings)
    assert store.catalog.skipped()["locked/"].detail == "Permission denied"
    store.close()


def test_a_failed_run_resumes_and_says_so(tree: Path, settings: Settings) -> None:
    class Failing(RecordingFactory):
        def __call__(self, name: str) -> HashEmbedder:
            model = super().__call__(name)
            model.embed_documents = lambda texts: (_ for _ in ()).throw(  # type: ignore
                RuntimeError("killed"))
            return model

    with pytest.raises(RuntimeError, match="killed"):
        index(tree, settings, Failing())
    store = Store.open(tree / ".semlith", settings=settings)
    assert store.catalog.counts()["pending_files"] >= 1
    assert store.catalog.keyword("RetryPolicy", 5)  # rows land before their vectors
    store.close()
    report = index(tree, settings)
    assert report.complete and report.indexed >= 1
    assert "resumed" in report.summary()


def test_time_budget_leaves_the_rest_for_the_next_call(tree: Path, settings: Settings) -> None:
    first = index(tree, settings, time_budget=0.0)
    assert not first.complete and first.pending > 0
    second = index(tree, settings)
    assert second.complete and second.indexed == first.pending


def test_index_a_subfolder_only(tree: Path, settings: Settings) -> None:
    index(tree, settings)
    (tree / "net/retry.py").write_text("changed = True\n")
    (tree / "web/router.js").write_text("// changed\n")
    report = index(tree, settings, paths=[tree / "net"])
    assert report.indexed == 1 and report.removed == 0
    store = Store.open(tree / ".semlith", settings=settings)
    assert store.catalog.file("web/router.js").hash  # type: ignore[union-attr]
    store.close()


def test_store_keeps_its_model(tree: Path, settings: Settings) -> None:
    index(tree, settings)
    library = LocalLibrary(settings, embedder_factory=RecordingFactory())
    with pytest.raises(Exception, match="keeps its model"):
        library.index([str(tree)], model="another-model")


def test_a_scoped_run_applies_the_ignore_rules_above_it(tree: Path, settings: Settings) -> None:
    index(tree, settings)
    (tree / ".gitignore").write_text("*.log\n")
    (tree / "net/debug.log").write_text("connection retry log line\n")
    (tree / "net/extra.py").write_text("EXTRA = 1\n")
    report = index(tree, settings, paths=[tree / "net"])
    assert report.indexed == 1
    store = Store.open(tree / ".semlith", settings=settings)
    assert store.catalog.file("net/debug.log") is None
    assert store.catalog.skipped()["net/debug.log"].reason == "ignored by .gitignore"
    store.close()


def test_a_copied_project_indexes_itself(tree: Path, settings: Settings) -> None:
    index(tree, settings)
    copy = tree.parent / "copy"
    shutil.copytree(tree, copy)
    (copy / "net/new.py").write_text("BRAND_NEW = True\n")
    report = index(copy, settings)
    assert report.indexed == 1 and report.unchanged == 9
    assert find(copy, settings, "BRAND_NEW")[0] == "net/new.py"
    assert "net/new.py" not in find(tree, settings, "BRAND_NEW")


def test_names_that_are_not_utf8_or_hold_a_newline_do_not_stop_the_run(
        tree: Path, settings: Settings) -> None:
    """Issue 13: one such name made every run exit 1 on a SQLite encoding error."""
    bad = tree / os.fsdecode(b"caf\xe9.txt")
    try:
        bad.write_text("une tasse de caf\xe9\n")
        (tree / os.fsdecode(b"lat\xedn")).mkdir()
    except (OSError, UnicodeEncodeError) as exc:
        pytest.skip(f"this file system refuses non-UTF-8 names: {exc}")
    (tree / os.fsdecode(b"lat\xedn") / "inner.py").write_text("x = 1\n")
    (tree / "two\nlines.py").write_text("def newline_in_my_name():\n    pass\n")
    report = index(tree, settings)
    assert report.complete and report.indexed == 10
    store = Store.open(tree / ".semlith", settings=settings)
    skipped = store.catalog.skipped()
    assert skipped["caf\\xe9.txt"].reason == "name is not UTF-8"
    assert skipped["lat\\xedn/"].reason == "name is not UTF-8"
    assert store.catalog.file("two\nlines.py") is not None
    store.close()
    # Named on the command line (or by a watcher) it is skipped the same way.
    again = index(tree, settings, paths=[bad])
    assert again.complete and again.skipped == 1


def test_source_is_embedded_first_and_the_newest_first_within_a_role(
        tmp_path: Path, settings: Settings) -> None:
    """A large first run answers questions about the source early (issue 11)."""
    root = tmp_path / "proj"
    files = {"tests/test_app.py": "def test_app():\n    assert True\n",
             "CHANGELOG.md": "# Changes\n\n- fixed things\n",
             "docs/guide.md": "# Guide\n\nHow to use it.\n",
             "app/old.py": "def old_code():\n    return 1\n",
             "app/new.py": "def new_code():\n    return 2\n"}
    for n, (rel, text) in enumerate(files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, ns=(n * 10**9, n * 10**9))  # later in the dict: changed later
    os.utime(root / "app" / "old.py", ns=(10**9, 10**9))
    embedded: list[str] = []

    class Ordered(HashEmbedder):
        def embed_documents(self, texts: list[str]):  # type: ignore[no-untyped-def]
            embedded.extend(texts)
            return super().embed_documents(texts)

    LocalLibrary(settings, embedder_factory=lambda n: Ordered(n)).index([str(root)])
    order = [next(rel for rel, text in files.items() if text.splitlines()[-1].strip() in t)
             for t in embedded]
    firsts = list(dict.fromkeys(order))
    assert firsts == ["app/new.py", "app/old.py", "docs/guide.md", "tests/test_app.py",
                      "CHANGELOG.md"], firsts


def test_stats_say_how_much_waits_for_embedding(tree: Path, settings: Settings) -> None:
    """Rows are written (keyword-searchable) before their vectors: a run stopped between
    the two leaves chunks that `stats` counts as not embedded yet."""
    class Stopped(HashEmbedder):
        def embed_documents(self, texts: list[str]):  # type: ignore[no-untyped-def]
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        LocalLibrary(settings, embedder_factory=lambda n: Stopped(n)).index([str(tree)])
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    scope = Scope((str(tree / ".semlith"),))
    (before,) = library.stats(scope=scope)
    assert before.pending_chunks > 0 and before.pending_files > 0
    assert find(tree, settings, "RetryPolicy")[0] == "net/retry.py"  # by keyword already
    library.index([str(tree)])
    (after,) = library.stats(scope=scope)
    assert after.pending_chunks == 0 and after.chunks >= before.pending_chunks


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no os.mkfifo on this platform")
def test_a_file_that_became_a_fifo_after_the_walk_is_skipped_not_waited_on(
        tree: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk judged a regular file; by the time it is read it is a FIFO (issue #26)."""
    import semlith.index.indexer as indexer_module
    from semlith.ingest.walk import Candidate

    walk = indexer_module.walk_files

    def walk_then_swap(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        for item in walk(*args, **kwargs):  # type: ignore[arg-type]
            if isinstance(item, Candidate) and item.rel == "net/retry.py":
                item.path.unlink()
                os.mkfifo(item.path)
            yield item
    monkeypatch.setattr(indexer_module, "walk_files", walk_then_swap)
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(1)  # a hang fails the test instead of stalling the suite
    report = pool.submit(index, tree, settings).result(timeout=60)
    pool.shutdown()
    assert report.indexed == 8
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    skipped = {s.path: s for s in library.skipped(scope=Scope((str(tree),)))}
    assert skipped["net/retry.py"].reason == "unreadable"
    assert "not a regular file (fifo)" in skipped["net/retry.py"].detail


# -- the read pass and the embed pass (issue #43) ------------------------------------------


def test_every_file_is_keyword_searchable_before_the_first_chunk_is_embedded(
        tree: Path, settings: Settings) -> None:
    written: list[int] = []

    class Looking(RecordingFactory):
        def __call__(self, name: str) -> HashEmbedder:
            model = super().__call__(name)
            embed = model.embed_documents

            def first_look(texts: list[str]):  # type: ignore[no-untyped-def]
                if not written:  # what the catalog holds when embedding starts
                    store = Store.open(tree / ".semlith", settings=settings)
                    written.append(store.catalog.counts()["files"])
                    store.close()
                return embed(texts)

            model.embed_documents = first_look  # type: ignore[method-assign]
            return model

    report = index(tree, settings, Looking())
    assert written == [9] and report.indexed == 9 and report.complete


def test_a_budget_leaves_half_for_embedding_when_reading_is_slow(
        tree: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run called again and again with a budget (an agent's `index`) embeds every time,
    even when reading alone would take the whole budget."""
    import semlith.index.embed_phase as phase
    from semlith.index.indexer import Indexer

    clock = [0.0]
    cut = phase.cut

    def slow_cut(*args: object) -> object:
        clock[0] += 10.0  # each file takes 10 s to read
        return cut(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(phase, "cut", slow_cut)
    store = Store.create(tree / ".semlith", model="test-hash", dim=64, settings=settings)

    def run() -> IndexReport:
        return Indexer(store, tree, HashEmbedder, clock=lambda: clock[0]).run(
            time_budget=45.0)

    first = run()
    assert 0 < first.indexed < 9 and first.pending == 9 - first.indexed
    assert first.chunks > 0  # read for half the budget (and a file), then embedded
    total = first.indexed
    for _ in range(10):
        if total == 9:
            break
        total += run().indexed
    store.close()
    assert total == 9


def test_the_spool_gives_back_what_it_was_given(tmp_path: Path) -> None:
    from semlith.index.embed_phase import Spool

    spool = Spool(tmp_path)
    texts = ["def f():\n    return 1", "", "naïve — 日本語 \udcff", "x" * 100_000]
    spool.add([1, 2], 7, texts[:2])
    spool.add([3, 4], 8, texts[2:])
    assert spool.waiting == 4
    assert spool.take(3) == ([1, 2, 3], [7, 7, 8], texts[:3])
    spool.add([5], 9, ["later"])
    assert spool.take(10) == ([4, 5], [8, 9], [texts[3], "later"])
    assert spool.waiting == 0 and spool.take(5) == ([], [], [])
    spool.close()
    assert list(tmp_path.iterdir()) == []  # nothing left beside the store
