"""The canary corpus (issue #26): no fake credential is served, ordinary code is left alone.

The corpus (`tests/canaries.py`) is indexed with the real indexer and then everything a
store can serve is read back: chunk text, the keyword index and its vocabulary, symbols,
what was embedded, `read`, search hits, every line `grep` finds, `files`, `skipped` and
stats. Issue #47 added inline assignments (`PGPASSWORD=... psql`) in every position of a
line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.ingest.document import read_document
from semlith.ingest.extract import extract_text
from semlith.ingest.secrets import MARKER, redact
from semlith.local import LocalLibrary
from semlith.store import Store
from semlith.types import Scope
from tests.canaries import NEGATIVES, Canary, canaries, leaks, write_canaries
from tests.conftest import HashEmbedder, RecordingFactory
from tests.secret_fixtures import everything_stored, index

CORPUS = canaries()
INDEXED = [c for c in CORPUS if c.kind]  # the others have the credential in their path
_MARKER = re.compile(re.escape(MARKER).replace(r"\{kind\}", r"[a-z0-9-]+"))


def test_the_corpus_is_what_issue_26_asks_for() -> None:
    assert len(CORPUS) >= 80
    assert len({c.path for c in CORPUS}) == len(CORPUS)
    suffixes = {Path(c.path).suffix or Path(c.path).name for c in CORPUS}
    assert {".py", ".js", ".yaml", ".yml", ".ini", ".properties", ".sh", ".md", ".eml",
            "Dockerfile", ".json"} <= suffixes


@pytest.mark.parametrize("canary", INDEXED, ids=lambda c: c.name)
def test_each_canary_becomes_its_marker(canary: Canary) -> None:
    data = canary.text.encode()
    document = read_document(canary.path, data)
    assert leaks(document.text, [canary]) == []
    assert MARKER.format(kind=canary.kind) in document.text
    _assert_same_lines(extract_text(canary.path, data), document.text)


@pytest.mark.parametrize("rel", sorted(NEGATIVES))
def test_ordinary_code_is_not_redacted(rel: str) -> None:
    out = redact(NEGATIVES[rel])
    assert out.count == 0, [line for line in out.text.split("\n") if "[REDACTED:" in line
                            and line not in NEGATIVES[rel]]


def _assert_same_lines(original: str, redacted: str) -> None:
    """Line N of the redacted text is line N of the original: a line that changed keeps
    what was around its marker, and the lines a multi-line secret went on to keep only
    what followed it."""
    before, after = original.split("\n"), redacted.split("\n")
    assert len(before) == len(after)
    inside = False
    for old, new in zip(before, after, strict=True):
        if old == new:
            inside = False
        elif _MARKER.search(new):
            pieces = _MARKER.split(new)
            assert old.startswith(pieces[0]) and old.endswith(pieces[-1]), (old, new)
            inside = True
        else:
            assert inside and old.endswith(new), (old, new)


def _vocabulary_leaks(store: Store, corpus: list[Canary]) -> list[str]:
    """Canaries a keyword term was made from: FTS splits a token at punctuation, folds
    case and stems it, so a term is looked for inside each letter-and-digit run."""
    terms = [t for (t,) in store.catalog.db.execute("SELECT term FROM chunks_vocab")
             if len(t) >= 8]
    runs = {c.name: [r.lower() for p in c.parts for r in re.findall(r"[A-Za-z0-9]{10,}", p)]
            for c in corpus}
    return [name for name, found in runs.items() if any(t in r for r in found for t in terms)]


def test_nothing_in_the_corpus_is_served(tmp_path: Path, settings: Settings) -> None:
    root = tmp_path / "corpus"
    write_canaries(root, CORPUS, NEGATIVES)
    recording = RecordingFactory()
    report = index(root, settings, recording)
    assert report.complete
    store = Store.open(root / ".semlith", settings=settings)
    try:
        indexed = {f.path: f for f in store.catalog.files()}
        skipped = store.catalog.skipped()
        served = [everything_stored(store), "\n".join(recording.texts), repr(store.stats())]
        assert _vocabulary_leaks(store, CORPUS) == []
    finally:
        store.close()
    assert {c.path for c in INDEXED} <= set(indexed)
    assert all(indexed[c.path].redacted >= 1 for c in INDEXED)
    assert all(indexed[rel].redacted == 0 for rel in NEGATIVES)
    assert {rel: (r.reason, r.detail) for rel, r in skipped.items()} == {
        "tokens/[REDACTED:github-token].txt": ("secret", "github-token in the name"),
        "keys/[REDACTED:aws-key].json": ("secret", "aws-key in the name"),
        "backup-[REDACTED:gitlab-token]/": ("secret", "gitlab-token in the name"),
    }
    library = LocalLibrary(settings, embedder_factory=lambda name: HashEmbedder(name))
    scope = Scope(stores=(str(root / ".semlith"),))
    try:
        every_line = library.grep(".", regex=True, limit=10_000, scope=scope)
        assert every_line.more_matches == 0 and len(every_line.files) == len(indexed)
        served += [repr(library.files(scope=scope)), repr(library.skipped(scope=scope)),
                   repr(library.stats(scope=scope)), json.dumps(every_line.as_json())]
        for canary in INDEXED:
            passage = library.read(canary.path, scope=scope, max_lines=10_000)
            document = read_document(canary.path, (root / canary.path).read_bytes())
            assert passage.lines == tuple(document.text.split("\n")), canary.name
            _assert_same_lines(extract_text(canary.path, canary.text.encode()),
                               "\n".join(passage.lines))
            served.append("\n".join(passage.lines))
            for part in canary.parts[:2]:
                hits = library.search(part, k=5, scope=scope).hits
                served += [repr(hit) for hit in hits]
    finally:
        library.close()
    assert leaks("\n".join(served), CORPUS) == []


def test_chunks_keep_the_files_line_numbers(tmp_path: Path, settings: Settings) -> None:
    """A search hit's lines are the file's lines: each chunk's text is the document's
    lines `start_line..end_line`."""
    root = tmp_path / "corpus"
    write_canaries(root, INDEXED, {})
    index(root, settings)
    store = Store.open(root / ".semlith", settings=settings)
    try:
        rows = store.catalog.db.execute(
            "SELECT f.path, c.start_line, c.end_line, c.text FROM chunks c "
            "JOIN files f ON f.id = c.file_id").fetchall()
    finally:
        store.close()
    assert rows
    for rel, start, end, text in rows:
        lines = read_document(rel, (root / rel).read_bytes()).text.split("\n")
        assert text.strip("\n") in "\n".join(lines[start - 1 : end]), (rel, start, end)
