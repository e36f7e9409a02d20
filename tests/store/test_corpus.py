"""The `Corpus` contract, run over every kind of store: a local one, a Milvus-backed one
and a mirror of it (attached by another home, with neither the files nor a catalog of
chunks). Each indexes a copy of the sample with the deterministic embedder; what the
kinds share must agree, and what differs in kind is what the corpus says it is."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from itertools import count
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.local import LocalLibrary
from semlith.ranking.query import analyse
from semlith.store import Store
from semlith.store.corpus import Corpus
from semlith.store.query import EVERYTHING, Selection
from semlith.types import Filters
from tests.conftest import HashEmbedder, RecordingFactory

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample"
KINDS = ["local", "milvus", "mirror"]
_names = count()


def _store(kind: str, tmp: Path, settings: Settings, request: pytest.FixtureRequest
           ) -> Path:
    """The folder of a store of `kind` holding the sample."""
    root = tmp / "sample"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    backend = None
    if kind != "local":
        uri = request.getfixturevalue("milvus_server").uri
        backend = f"{uri}/c{next(_names)}_{os.getpid()}"
    library = LocalLibrary(settings, embedder_factory=RecordingFactory())
    library.index([str(root)], model="test-hash", backend=backend)
    library.close()
    if kind != "mirror":
        return root / ".semlith"
    shutil.rmtree(root)  # another machine: neither the files nor the catalog
    reader = LocalLibrary(Settings.load(env={"SEMLITH_HOME": str(tmp / "reader-home")}),
                          embedder_factory=RecordingFactory())
    return Path(reader.attach(f"{backend}?repo=sample").folder)


@pytest.fixture(params=KINDS)
def corpus(request: pytest.FixtureRequest, tmp_path: Path, settings: Settings
           ) -> Iterator[Corpus]:
    folder = _store(request.param, tmp_path, settings, request)
    with Store.open(folder, settings=settings) as store:
        yield store.corpus


def test_what_the_corpus_is(corpus: Corpus) -> None:
    mirror = not corpus.writable
    assert corpus.reads_files == corpus.indexes_definitions == (not mirror)
    assert corpus.origin
    assert corpus.has_chunks()


def test_dense_candidates_are_records_best_first(corpus: Corpus) -> None:
    vector = HashEmbedder().embed_query("retry failed requests with backoff")
    found = corpus.dense(vector, 5, EVERYTHING, corpus.selected(EVERYTHING))
    assert len(found) == 5
    scores = [score for _, score in found]
    assert scores == sorted(scores, reverse=True)
    records = corpus.records([i for i, _ in found] + [10**9])
    assert set(records) == {i for i, _ in found}  # a missing id is left out


def test_keyword_candidates_hold_the_words(corpus: Corpus) -> None:
    found = corpus.keyword(analyse("backoff"), 5, EVERYTHING)
    assert found
    records = corpus.records([i for i, _ in found])
    assert all("backoff" in records[i].text.lower() for i, _ in found)


def test_filters_keep_what_they_select(corpus: Corpus) -> None:
    sel = Selection.of(Filters(exts=("py",)))
    selected = corpus.selected(sel)
    assert selected is None or 0 < selected < 15  # None: the engine filters itself
    vector = HashEmbedder().embed_query("retry")
    found = corpus.dense(vector, 15, sel, selected) + corpus.keyword(analyse("retry"), 15, sel)
    assert found
    assert {r.path.rsplit(".", 1)[1] for r in corpus.records([i for i, _ in found]).values()
            } == {"py"}


def test_definitions_and_a_files_chunks(corpus: Corpus) -> None:
    if corpus.indexes_definitions:  # the catalog's table: any case
        assert corpus.definitions("retrypolicy") == corpus.definitions("RetryPolicy")
    found = corpus.definitions("RetryPolicy")
    assert {d.path for d in found} == {"net/retry.py"}
    assert all(d.name == "RetryPolicy" and d.store == "" for d in found)
    chunks = corpus.file_records("net/retry.py")
    assert chunks and [c.start_line for c in chunks] == sorted(c.start_line for c in chunks)
    assert all(c.path == "net/retry.py" for c in chunks)
    assert corpus.file_records("no/such.py") == []
    inside = corpus.file_definitions("net/retry.py")  # what a grep match is in (#23)
    assert {d.name for d in inside} >= {"RetryPolicy"}
    assert all(d.path == "net/retry.py" and d.start_line <= d.end_line for d in inside)
    assert [d.start_line for d in inside] == sorted(d.start_line for d in inside)
    if corpus.indexes_definitions:
        assert {d.qualname for d in inside} >= {"RetryPolicy.delay", "call_with_retry"}
    assert corpus.file_definitions("docs/deployment.md")[0].kind == "section"
    assert corpus.file_definitions("no/such.py") == []


def test_the_kinds_agree_on_what_they_share(tmp_path: Path, settings: Settings,
                                            request: pytest.FixtureRequest) -> None:
    answers = []
    for kind in KINDS:
        folder = _store(kind, tmp_path / kind, settings, request)
        with Store.open(folder, settings=settings) as store:
            corpus = store.corpus
            found = corpus.definitions("RetryPolicy")
            answers.append((
                [(c.start_line, c.end_line, c.kind, c.symbol, c.text)
                 for c in corpus.file_records("net/retry.py")],
                sorted((d.path, d.name, d.kind) for d in found),
                # a mirror's definitions are its chunks' symbols: the chunk's lines
                sorted((d.start_line, d.end_line) for d in found)
                if corpus.indexes_definitions else None))
    assert answers[0][:2] == answers[1][:2] == answers[2][:2]
    assert answers[0][2] == answers[1][2]  # both read the catalog's definitions
