"""One ranking across stores (issue #45): hits of several stores are merged by a standing
that compares across stores, not by fused scores that do not."""

from __future__ import annotations

from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.local import LocalLibrary
from semlith.ranking.relevance import calibrated, merged, standings
from semlith.types import Scope
from tests.conftest import HashEmbedder


def test_a_stores_standings_keep_its_order_and_scale_with_its_nearest_chunk() -> None:
    scores = [0.08, 0.06, 0.02]
    close, far = standings(scores, 0.9, 0.6), standings(scores, 0.3, 0.6)
    assert close == sorted(close, reverse=True) and far == sorted(far, reverse=True)
    assert close[0] == pytest.approx(calibrated(0.9, 0.6))
    assert far[0] == pytest.approx(calibrated(0.3, 0.6))
    assert all(c > f for c, f in zip(close, far, strict=True))
    assert standings(scores, None, None)[0] == 0.5  # not embedded yet: at the floor
    assert standings([], 0.9, 0.6) == [] and standings([0.0], 0.9, 0.6) == [0.0]


def test_merged_orders_by_standing_and_leaves_one_store_as_it_is() -> None:
    one = [(0.2, "a1"), (0.9, "a2")]  # one store: its own order, whatever the standings
    assert merged([one], 5) == ["a1", "a2"]
    near = [(0.8, "n1"), (0.6, "n2"), (0.1, "n3")]
    far = [(0.4, "f1"), (0.3, "f2")]
    assert merged([far, near], 4) == ["n1", "n2", "f1", "f2"]
    assert merged([far, near], 1) == ["n1"]
    # equal standings: the better rank first, then the store named first
    assert merged([[(0.5, "x1"), (0.1, "x2")], [(0.5, "y1")]], 3) == ["x1", "y1", "x2"]


def test_the_order_across_stores_never_contradicts_the_relevance_shown(
        tmp_path: Path, settings: Settings) -> None:
    app, sample = tmp_path / "app", tmp_path / "sample"
    for folder in (app, sample):
        folder.mkdir()
    (app / "sessions.py").write_text(
        "def verify_session_cookie(cookie, secret):\n"
        '    """Verify the session cookie signature with the secret."""\n'
        "    return sign(cookie, secret) == cookie.signature\n")
    (app / "cookies.py").write_text("# cookie cookie cookie jar\ndef jar(cookie):\n"
                                    "    return [cookie]\n")
    (app / "routes.py").write_text("def route(path):\n    return path\n")
    (sample / "http_client.py").write_text(  # shares one word with the question
        "def get(url, retries):\n    return fetch(url, retries, cookie=None)\n")
    (sample / "cache.py").write_text("class LruCache:\n    def evict(self):\n        pass\n")
    library = LocalLibrary(settings, embedder_factory=HashEmbedder)
    try:
        library.index([str(app)])
        library.index([str(sample)])
        question = "is the cookie signature verified with the secret"
        alone = library.search(question, k=10, scope=Scope((str(app),))).hits
        both = library.search(question, k=10, scope=Scope(("*",))).hits
        assert both[0] == alone[0] and both[0].store == "app"
        # Fused scores put the sample's cache.py (0.14) before app's routes.py (0.28):
        # the relevance printed beside each hit falls as the list goes down.
        shown = [h.relevance for h in both]
        assert None not in shown and shown == sorted(shown, reverse=True)  # type: ignore
        assert {h.store for h in both} == {"app", "sample"}
    finally:
        library.close()
