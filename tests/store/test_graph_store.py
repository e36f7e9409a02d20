"""The code graph's edges in the catalog (issue #22): written with a file's chunks,
replaced when it changes, copied and moved with it, deleted with it, extracted for a
store from before without re-embedding, and a failure costs the file its edges only."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.graph.modules import languages_of
from semlith.ingest.graph import extract
from semlith.local import LocalLibrary
from semlith.store.catalog import Catalog
from semlith.store.edges import (
    calls_named,
    definitions_named,
    edge_counts,
    failed_edges,
    file_edges,
)
from semlith.types import IndexReport, Scope
from tests.conftest import RecordingFactory

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "graph" / "python"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("expected.json"))
    (root / "README.md").write_text("# A shop\n\nCarts and bills.\n")
    return root


def index(root: Path, settings: Settings, factory: RecordingFactory | None = None
          ) -> IndexReport:
    library = LocalLibrary(settings, embedder_factory=factory or RecordingFactory())
    try:
        return library.index([str(root)])
    finally:
        library.close()


def catalog(root: Path) -> Catalog:
    return Catalog.open(root / ".semlith" / "store.db", readonly=True)


def calls_of(root: Path, rel: str) -> list[tuple[int, str, str]]:
    cat = catalog(root)
    try:
        row = cat.db.execute("SELECT id FROM files WHERE path=?", (rel,)).fetchone()
        return [(c.line, c.name, c.caller) for c in file_edges(cat, int(row[0])).calls]
    finally:
        cat.close()


def counts(root: Path) -> dict[str, int]:
    cat = catalog(root)
    try:
        return edge_counts(cat)
    finally:
        cat.close()


def test_every_code_file_gets_its_edges_and_markdown_none(tree: Path, settings: Settings
                                                          ) -> None:
    index(tree, settings)
    got = counts(tree)
    assert got["files"] == 6 and got["failed"] == 0  # the six .py files, not README.md
    assert (14, "validate", "Base.save") in calls_of(tree, "shop/models.py")


def test_a_changed_file_gets_new_edges_and_the_others_keep_theirs(tree: Path,
                                                                  settings: Settings) -> None:
    index(tree, settings)
    before = calls_of(tree, "shop/models.py")
    (tree / "shop/report.py").write_text("def write():\n    render()\n")
    counting = RecordingFactory()
    assert index(tree, settings, counting).indexed == 1
    assert calls_of(tree, "shop/report.py") == [(2, "render", "write")]
    assert calls_of(tree, "shop/models.py") == before


def test_a_deleted_file_takes_its_edges_a_moved_one_keeps_them(tree: Path,
                                                               settings: Settings) -> None:
    index(tree, settings)
    moved = calls_of(tree, "shop/report.py")
    total = counts(tree)["calls"]
    (tree / "shop/report.py").rename(tree / "shop/reports.py")
    assert index(tree, settings).moved == 1
    assert calls_of(tree, "shop/reports.py") == moved
    (tree / "shop/reports.py").unlink()
    index(tree, settings)
    assert counts(tree)["calls"] == total - len(moved) and counts(tree)["files"] == 5


def test_a_copied_file_gets_the_edges_of_its_twin(tree: Path, settings: Settings) -> None:
    index(tree, settings)
    shutil.copy(tree / "shop/report.py", tree / "report_copy.py")
    counting = RecordingFactory()
    index(tree, settings, counting)
    assert counting.chunks == 0  # a copy: chunks and vectors reused
    assert calls_of(tree, "report_copy.py") == calls_of(tree, "shop/report.py") != []


def test_a_no_op_run_reads_and_writes_nothing(tree: Path, settings: Settings) -> None:
    index(tree, settings)
    before = counts(tree)
    counting = RecordingFactory()
    report = index(tree, settings, counting)
    assert (report.indexed, counting.loads) == (0, 0)
    assert counts(tree) == before


def test_a_file_whose_edges_fail_loses_them_with_the_reason_not_the_run(
        tree: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "EDGE_SECONDS", -1.0)  # every parse is already late
    report = index(tree, settings)
    assert report.indexed == 7 and report.complete
    reasons = failed_edges(catalog(tree))
    assert len(reasons) == 6 and all("took over" in why for why in reasons.values())


def test_a_store_from_before_the_graph_gets_edges_without_reembedding(
        tree: Path, settings: Settings) -> None:
    index(tree, settings)
    db = sqlite3.connect(tree / ".semlith" / "store.db")
    for table in ("edge_files", "edge_calls", "edge_imports", "edge_inherits",
                  "edge_contains", "edge_locals"):
        db.execute(f"DROP TABLE {table}")
    db.execute("PRAGMA user_version = 7")  # as before migration 8, the graph's tables
    db.commit()
    db.close()
    counting = RecordingFactory()
    report = index(tree, settings, counting)
    assert (report.indexed, counting.chunks) == (0, 0)
    assert counts(tree)["files"] == 6
    assert (14, "validate", "Base.save") in calls_of(tree, "shop/models.py")


def test_a_changed_edge_query_extracts_again_without_reembedding(
        tree: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    index(tree, settings)
    monkeypatch.setattr(extract, "EXTRACTOR_REVISION", extract.EXTRACTOR_REVISION + 1)
    extract.edges_fingerprint.cache_clear()
    os.utime(tree / "app.py")  # unrelated: still unchanged content
    counting = RecordingFactory()
    try:
        assert index(tree, settings, counting).indexed == 0
        cat = catalog(tree)
        fingerprints = {r[0] for r in cat.db.execute("SELECT fingerprint FROM edge_files")}
        cat.close()
        assert {f.split(":")[0] for f in fingerprints} == {str(extract.EXTRACTOR_REVISION)}
    finally:
        extract.edges_fingerprint.cache_clear()


def test_an_edit_is_seen_by_the_next_graph_question(tree: Path, settings: Settings) -> None:
    library = LocalLibrary(settings, embedder_factory=RecordingFactory())
    try:
        library.index([str(tree)])
        scope = Scope((str(tree),))
        before = {e.name for e in library.neighbors("Base.save", scope=scope).callers}
        (tree / "shop" / "report.py").write_text(
            "from shop.models import Cart\n\n\ndef audit():\n    Cart().save()\n")
        library.index([str(tree)])
        after = {e.name for e in library.neighbors("Base.save", scope=scope).callers}
        assert after == before | {"audit"}
    finally:
        library.close()


def test_a_name_is_read_in_one_language_family_when_asked(tree: Path, settings: Settings
                                                          ) -> None:
    (tree / "web").mkdir()
    (tree / "web" / "form.js").write_text("function validate(x) { return x; }\nvalidate(1);\n")
    (tree / "web" / "page.ts").write_text("import { validate } from './form';\nvalidate(2);\n")
    index(tree, settings)
    cat = catalog(tree)
    try:
        def paths(file_ids: list[int]) -> set[str]:
            return {str(cat.db.execute("SELECT path FROM files WHERE id=?", (i,)).fetchone()[0])
                    for i in file_ids}
        every = paths([s.file_id for s in calls_named(cat, ["validate"])])
        python = paths([s.file_id for s in calls_named(cat, ["validate"], ("python",))])
        js = paths([s.file_id for s in calls_named(cat, ["validate"], languages_of("tsx"))])
        assert {"web/form.js", "web/page.ts", "shop/models.py"} <= every
        assert python == every - {"web/form.js", "web/page.ts"}
        assert js == {"web/form.js", "web/page.ts"}
        assert [d.path for d in definitions_named(cat, "validate", languages_of("typescript"))
                ] == ["web/form.js"]
        assert "web/form.js" not in {d.path for d in definitions_named(cat, "validate",
                                                                        ("python",))}
    finally:
        cat.close()
