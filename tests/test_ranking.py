"""Fusion: one hit per file first; held-back chunks fill the rest when files run out."""

from __future__ import annotations

from collections.abc import Callable

from semlith.embed.pool import EmbedderPool
from semlith.search import Ranking, Searcher
from semlith.store import Store
from tests.conftest import HashEmbedder, add_file

WALRUS = ["walrus tusks and whiskers", "walrus colony on the ice", "walrus diet of clams",
          "walrus swims slowly"]


def _searcher(make_store: Callable[..., Store], ranking: Ranking | None = None) -> Searcher:
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
    hits = _searcher(make_store, Ranking(max_per_file=0)).search("walrus", k=3)
    assert [h.path for h in hits].count("big.md") >= 2


def test_a_list_weighted_zero_scores_nothing_and_breaks_nothing(
        make_store: Callable[..., Store]) -> None:
    searcher = _searcher(make_store, Ranking(dense_weight=0, keyword_weight=0,
                                             path_weight=0, symbol_weight=0))
    hits = searcher.search("walrus", k=6)
    assert len(hits) == 6 and all(h.score >= 0 for h in hits)
