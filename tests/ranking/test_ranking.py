"""Fusion: one hit per file first; held-back chunks fill the rest when files run out."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from semlith.base.settings import Settings
from semlith.base.weights import Weights
from semlith.embed.pool import EmbedderPool
from semlith.ranking.query import analyse
from semlith.search.searcher import Searcher
from semlith.store import Store
from tests.conftest import HashEmbedder, add_file

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample"
WALRUS = ["walrus tusks and whiskers", "walrus colony on the ice", "walrus diet of clams",
          "walrus swims slowly"]


def _searcher(make_store: Callable[..., Store], ranking: Weights | None = None) -> Searcher:
    model = HashEmbedder("test-model")
    store = make_store(dim=model.dim)
    add_file(store, "big.md", model.embed_documents(WALRUS), WALRUS)
    add_file(store, "small.md", model.embed_documents(["a walrus"]), ["a walrus"])
    add_file(store, "other.md", model.embed_documents(["penguins"]), ["penguins"])
    return Searcher([("t", store)], EmbedderPool(lambda n: model), ranking)


def test_every_file_comes_first_then_the_held_back_chunks(
        make_store: Callable[..., Store]) -> None:
    hits = _searcher(make_store).search("walrus", k=6)
    paths = [h.path for h in hits]
    assert len(hits) == 6  # three files, six hits asked for: k answers, not three
    assert sorted(paths[:3]) == ["big.md", "other.md", "small.md"]
    assert paths[3:] == ["big.md"] * 3
    assert len({(h.path, h.start_line) for h in hits}) == 6
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True) and scores[3] < scores[2]


def test_enough_files_means_one_hit_each(make_store: Callable[..., Store]) -> None:
    hits = _searcher(make_store).search("walrus", k=2)
    assert sorted(h.path for h in hits) == ["big.md", "small.md"]


def test_no_per_file_limit_ranks_chunks_alone(make_store: Callable[..., Store]) -> None:
    hits = _searcher(make_store, Weights(per_file=0)).search("walrus", k=3)
    assert [h.path for h in hits].count("big.md") >= 2


def test_a_list_weighted_zero_scores_nothing_and_breaks_nothing(
        make_store: Callable[..., Store]) -> None:
    searcher = _searcher(make_store, Weights(dense=0, keyword=0, path=0, symbol=0))
    hits = searcher.search("walrus", k=6)
    assert len(hits) == 6 and all(h.score >= 0 for h in hits)


def test_the_top_k_is_a_prefix_of_the_top_k_plus_n(make_store: Callable[..., Store]) -> None:
    """Asking for more hits never reorders the first ones (it used to: the top 10 at k=10
    and the first 10 at k=50 agreed for 16 of 100 questions), whatever depth each k
    fetches its lists to."""
    model = HashEmbedder("test-model")
    store = make_store(dim=model.dim)
    words = ["walrus", "seal", "ice", "colony", "tusk", "clam", "swim", "arctic", "pod"]
    for n in range(120):
        texts = [" ".join(words[(n * 7 + i * 3 + j) % len(words)] for j in range(4 + i % 3))
                 for i in range(1 + n % 4)]
        # Tests among the source: the head reads on past them (pipeline.REACH).
        path = f"tests/test_f{n:03d}.py" if n % 3 == 0 else f"d{n % 7}/f{n:03d}.md"
        add_file(store, path, model.embed_documents(texts), texts)
    searcher = Searcher([("t", store)], EmbedderPool(lambda n: model))
    for query in ("walrus colony", "arctic seal swim", "tusk", "clam pod ice"):
        ranked = {k: [(h.path, h.start_line) for h in searcher.search(query, k=k)]
                  for k in (1, 5, 10, 29, 30, 31, 49, 50, 51, 99, 100, 101, 200)}
        for k, hits in ranked.items():
            assert len(hits) == k
            assert hits == ranked[200][:k], (query, k)


def test_tied_copies_rank_by_path_whatever_order_the_store_was_built_in(
        make_store: Callable[..., Store]) -> None:
    """Copies of a file score alike; their order followed chunk ids, which differ between
    a fresh store and a resumed one (issue #26)."""
    model = HashEmbedder("test-model")
    text = ["walrus colony on the ice", "walrus diet of clams"]
    copies = ["a/notes.md", "b/notes.md", "c/notes.md", "d/notes.md"]
    orders = []
    for name, built in (("fresh", copies), ("resumed", copies[::-1])):
        store = make_store(name=name, dim=model.dim)
        for path in built:
            add_file(store, path, model.embed_documents(text), text)
        searcher = Searcher([("t", store)], EmbedderPool(lambda n: model))
        orders.append([(h.path, h.start_line) for h in searcher.search("walrus clams", k=8)])
    assert orders[0] == orders[1]
    assert [p for p, _ in orders[0][:4]] == copies


def test_a_store_whose_keyword_list_fails_is_left_out_without_an_executor(
        make_store: Callable[..., Store], monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a worker pool the keyword list ran outside the store's isolation: its
    failure (a Milvus engine down) escaped the search of every store."""
    import sqlite3

    model = HashEmbedder("test-model")
    good, bad = make_store(name="good", dim=model.dim), make_store(name="bad", dim=model.dim)
    for store in (good, bad):
        add_file(store, "a.md", model.embed_documents(WALRUS), WALRUS)

    def fail(*args: object) -> object:
        raise sqlite3.OperationalError("disk I/O error")
    monkeypatch.setattr(bad.catalog, "match", fail)
    searcher = Searcher([("good", good), ("bad", bad)], EmbedderPool(lambda n: model))
    hits = searcher.search("walrus", k=3)
    assert hits and {h.store for h in hits} == {"good"}
    assert searcher.failed == [("bad", "disk I/O error")]


# -- issue #21: priors as evidence, old copies, file names, whole modules ----------------

def _store_of(make_store: Callable[..., Store], files: dict[str, list[str]],
              name: str = "store") -> Searcher:
    model = HashEmbedder("test-model")
    store = make_store(name=name, dim=model.dim)
    for path, texts in files.items():
        add_file(store, path, model.embed_documents(texts), texts)
    return Searcher([("t", store)], EmbedderPool(lambda n: model))


@pytest.mark.model
def test_a_chunk_first_in_two_lists_is_not_vetoed_by_its_prior(
        tmp_path: Path, settings: Settings) -> None:
    """The sample project plus a Markdown note about Zanzibar: the note, first in both the
    dense and the keyword list, lost to a code chunk second in one (the docs prior
    outweighed all of fusion)."""
    import shutil

    from semlith.local import LocalLibrary
    from semlith.types import Scope

    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    (root / "extra.md").write_text("# Zanzibar\n\nZanzibar is an island; zanzibar spice.\n")
    library = LocalLibrary(settings)
    library.index([str(root)])
    answer = library.search("zanzibar", k=3, scope=Scope((str(root),)))
    assert answer.hits[0].path == "extra.md"


@pytest.mark.parametrize(("paths", "old"), [
    (["pkg/main.py", "pkg/v1/main.py"], {"pkg/v1/main.py"}),
    (["api/v1/users.go", "api/v3/users.go", "api/v2/users.go"],
     {"api/v1/users.go", "api/v2/users.go"}),
    (["mod/a.go", "mod/v2/a.go"], set()),  # a Go module's v2 is newer than its root
    (["lib/1.x/a.js", "lib/2.x/a.js"], {"lib/1.x/a.js"}),
    (["days/2/a.md", "days/3/a.md"], set()),  # a bare number is not a version
    # a tree rewritten for the new version: its folder beside the old one is enough
    (["src/v3/types.ts", "src/v4/core/schemas.ts"], {"src/v3/types.ts"}),
    (["api/v1/users.go", "a/v2/orders.go"], set()),  # not side by side: no copy
])
def test_old_copies_beside_the_current_code(paths: list[str], old: set[str]) -> None:
    from semlith.ranking.versions import old_copies

    assert old_copies(paths, analyse("how are users listed").names_version) == old


def test_a_question_naming_a_version_keeps_every_copy() -> None:
    from semlith.ranking.versions import old_copies

    paths = ["api/v1/users.go", "api/v3/users.go"]
    assert old_copies(paths, analyse("how are users listed").names_version) \
        == {"api/v1/users.go"}
    for question in ("how does the v1 api list users", "users in version 1",
                     "the 2.x branch"):
        assert analyse(question).names_version
        assert old_copies(paths, analyse(question).names_version) == frozenset()


def test_an_old_copy_ranks_below_the_current_one(make_store: Callable[..., Store]) -> None:
    text = ["def list_users(db): return db.query(users, walrus)"]
    searcher = _store_of(make_store, {"api/v1/users.py": text, "api/v2/users.py": text})
    assert [h.path for h in searcher.search("list users walrus", k=2)] == [
        "api/v2/users.py", "api/v1/users.py"]


def test_the_english_messages_rank_above_their_translations(
        make_store: Callable[..., Store]) -> None:
    text = ["case too_small: return `Too small: expected ${issue.origin} walrus`"]
    files = {f"src/locales/{code}.ts": text for code in ("da", "de", "en", "fr", "pl")}
    searcher = _store_of(make_store, files)

    def english_over_the_best_translation(question: str) -> float:
        scores = {h.path: h.score for h in searcher.search(question, k=5)}
        english = scores.pop("src/locales/en.ts")
        return english / max(scores.values())

    assert english_over_the_best_translation("too small walrus message") > 2
    # A question about translations, or naming a language, keeps every one as it is.
    for question in ("too small walrus message translations", "too small walrus in german"):
        assert english_over_the_best_translation(question) < 1.5


def test_a_file_named_for_the_question_ranks_first(make_store: Callable[..., Store]) -> None:
    searcher = _store_of(make_store, {
        "lib/app/middleware.rb": ["def call(env) rack env app request response rack"],
        "lib/app/rack.rb": ["def mount(app) build the app for the server"],
        "lib/app/server.rb": ["def serve(app) rack handler request"]})
    assert searcher.search("rack integration for the app", k=3)[0].path == "lib/app/rack.rb"


def test_a_module_answering_with_several_chunks_beats_one_strong_chunk(
        make_store: Callable[..., Store]) -> None:
    module = [f"walrus routing table entry {i} registers a walrus route" for i in range(6)]
    searcher = _store_of(make_store, {
        "src/router.py": module,
        "src/tiny.py": ["walrus routing registers route"]})
    assert searcher.search("how are walrus routes registered", k=2)[0].path == "src/router.py"


def test_a_chunk_removed_between_ranking_and_reading_is_left_out(
        make_store: Callable[..., Store], monkeypatch: pytest.MonkeyPatch) -> None:
    """The ranking reads the candidates' places, the hits' texts are read after it: a
    writer that commits in between removes a hit, it does not fail the search."""
    from semlith.store.corpus import LocalCorpus

    searcher = _searcher(make_store)
    first = searcher.search("walrus", k=3)
    read = LocalCorpus.records

    def removed(self: LocalCorpus, ids: list[int]) -> object:
        found = read(self, ids)
        found.pop(ids[0], None)
        return found

    monkeypatch.setattr(LocalCorpus, "records", removed)
    hits = searcher.search("walrus", k=3)
    assert [h.path for h in hits] == [h.path for h in first[1:]]
    assert all(h.text for h in hits)


def test_a_failed_search_waits_for_its_keyword_lists(
        make_store: Callable[..., Store], monkeypatch: pytest.MonkeyPatch) -> None:
    """A search whose embedding failed left its keyword list running on a worker,
    reading a store its caller then closed: SQLite crashed the process (exit 139 in
    about one run of six of `brief` in one process)."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from semlith.store.corpus import LocalCorpus

    class Broken(HashEmbedder):
        def embed_query(self, text: str) -> np.ndarray:
            raise RuntimeError("the model is gone")

    model = Broken("test-model")
    store = make_store(dim=model.dim)
    add_file(store, "big.md", model.embed_documents(WALRUS), WALRUS)
    finished = threading.Event()
    read = LocalCorpus.keyword

    def slow(self: LocalCorpus, *args: object) -> object:
        time.sleep(0.3)  # still running when the embedding fails
        try:
            return read(self, *args)  # type: ignore[arg-type]
        finally:
            finished.set()

    monkeypatch.setattr(LocalCorpus, "keyword", slow)
    with ThreadPoolExecutor(1) as pool:
        searcher = Searcher([("t", store)], EmbedderPool(lambda n: model), executor=pool)
        with pytest.raises(RuntimeError, match="the model is gone"):
            searcher.search("walrus")
        assert finished.is_set()  # the worker is done before the store may close


@pytest.mark.parametrize(("path", "platform"), [
    ("src/win/core.c", "windows"), ("src/unix/core.c", None), ("src/unix/linux.c", "linux"),
    ("src/unix/random-sysctl-linux.c", "linux"), ("internal/poll/fd_windows.go", "windows"),
    ("internal/poll/fd_unix.go", None), ("src/sys/windows/mod.rs", "windows"),
    ("src/darwin/proctitle.c", "macos"), ("src/bsd-ifaddrs.c", None),  # a family: portable
    ("lib/hmac.c", None), ("net/mac_address.go", None), ("src/sunos.c", "solaris"),
    # Kotlin Multiplatform source sets, named for their targets.
    ("okio/src/mingwX64Main/kotlin/okio/FileSystem.kt", "windows"),
    ("okio/src/linuxMain/kotlin/okio/Posix.kt", "linux"),
    ("okio/src/macosX64Main/kotlin/okio/A.kt", "macos"),
    ("app/src/iosArm64Test/kotlin/A.kt", "ios"), ("okio/src/win32Main/A.kt", "windows"),
    ("okio/src/nonAppleMain/kotlin/A.kt", None), ("okio/src/commonMain/kotlin/A.kt", None),
    ("okio/src/jvmMain/kotlin/A.kt", None), ("okio/src/unixMain/kotlin/A.kt", None),
    ("src/Main/Linux.kt", "linux"), ("src/LinuxHelpers/a.kt", None),
])
def test_a_path_names_the_platform_it_is_for(path: str, platform: str | None) -> None:
    from semlith.ranking.platforms import platform_of

    assert platform_of(path) == platform


def test_a_question_names_platforms_in_its_words() -> None:
    assert analyse("how are pipes opened on Windows").platforms == {"windows"}
    assert analyse("Mac OS and Linux file watching").platforms == {"macos", "linux"}
    assert analyse("how is the event loop run").platforms == frozenset()


def test_a_platform_variant_ranks_below_the_portable_code(
        make_store: Callable[..., Store]) -> None:
    """The Windows copy matches better; the portable one still comes first, unless the
    question names Windows (then both rank as with the priors off)."""
    files = {"src/win/loop.c": ["walrus loop run"], "src/unix/loop.c": ["walrus loop"]}
    searcher = _store_of(make_store, files)
    model = HashEmbedder("test-model")
    off = Searcher(searcher.stores, EmbedderPool(lambda n: model), Weights(priors=0))

    def ranked(s: Searcher, question: str) -> list[tuple[str, float]]:
        return [(h.path, round(h.score, 6)) for h in s.search(question, k=2)]

    assert ranked(off, "walrus loop run")[0][0] == "src/win/loop.c"
    assert [p for p, _ in ranked(searcher, "walrus loop run")] == [
        "src/unix/loop.c", "src/win/loop.c"]
    assert ranked(searcher, "walrus loop run on Windows") == \
        ranked(off, "walrus loop run on Windows")
