"""Documents end to end: each fixture format indexed by the real indexer, a phrase in it
found, and the hit's lines, read back through `extract_text`, holding the phrase."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from semlith.base.formats import DOCUMENTS
from semlith.base.languages import language_of
from semlith.base.settings import Settings
from semlith.ingest.chunk import chunk_file
from semlith.ingest.extract import extract_text
from semlith.ingest.formats import format_status
from semlith.local import LocalLibrary
from semlith.types import Filters, Hit, Scope
from tests.conftest import HashEmbedder

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "formats"
BACKOFF = "Exponential backoff doubles the wait after every failed attempt"
QUOTA = "quota exceeded on the shard writer"
ROLLBACK = "rollback plan for the shard format"

# fixture, a phrase in it, text its hit's chunk must also hold (the structure around it)
CASES = [
    ("design.docx", BACKOFF, "## Backoff policy"),
    ("design.odt", BACKOFF, "## Backoff policy"),
    ("design.rtf", BACKOFF, "Backoff policy"),
    ("design.epub", BACKOFF, "Backoff policy"),
    ("book.epub", "Reciprocal rank fusion merges the dense", "## Fusion"),
    ("errors.xlsx", QUOTA, "| code | message | action | since |"),
    ("errors.ods", QUOTA, "| code | message | action | since |"),
    ("roadmap.pptx", ROLLBACK, "## Slide 2: Vector storage"),
    ("roadmap.odp", ROLLBACK, "## Slide 2: Vector storage"),
    ("outage.eml", "the lock file was left by a killed run", "## Message: Outage report"),
    ("outage.eml", BACKOFF, "Backoff policy"),  # in the attached Word document
    ("list.mbox", "splits camelCase identifiers before stemming", "## Message: Tokenizer"),
]


def search_one(root: Path, settings: Settings, name: str, query: str) -> list[Hit]:
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    report = library.index([str(root)])
    assert report.indexed == 1, report.summary()
    answer = library.search(query, k=3, filters=Filters(paths=(name,)),
                            scope=Scope((str(root),)))
    return list(answer.hits)


@pytest.mark.parametrize(("name", "phrase", "around"), CASES,
                         ids=[f"{n}:{p[:20]}" for n, p, _ in CASES])
def test_a_phrase_is_found_and_its_lines_read_back(tmp_path: Path, settings: Settings,
                                                   name: str, phrase: str,
                                                   around: str) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    shutil.copy(FIXTURES / name, root / name)
    hits = search_one(root, settings, name, phrase)
    lines = extract_text(name, (root / name).read_bytes()).split("\n")
    read_back = ["\n".join(lines[h.start_line - 1 : h.end_line]) for h in hits]
    assert any(phrase in text for text in read_back), (hits, read_back)
    best = next(h for h, text in zip(hits, read_back, strict=True) if phrase in text)
    assert best.text == "\n".join(lines[best.start_line - 1 : best.end_line])
    chunked = chunk_file("\n".join(lines), language_of(name))
    holder = next(c for c in chunked.chunks if c.start_line == best.start_line)
    assert around in holder.embedding_text()


def test_every_format_has_a_fixture_and_a_case() -> None:
    covered = {language_of(name).name for name, _, _ in CASES}  # type: ignore[union-attr]
    assert covered == {f.language for f in DOCUMENTS}


def test_a_sheet_block_repeats_the_header_and_names_its_rows() -> None:
    text = extract_text("errors.xlsx", (FIXTURES / "errors.xlsx").read_bytes())
    block = text[text.index("### Errors, rows") :]
    later = block[block.index("### Errors, rows", 10) :]
    assert later.split("\n")[1] == "| code | message | action | since |"
    assert "| E4242 | quota exceeded on the shard writer | raise the memory budget | " \
        "2025-03-14 |" in text  # a date cell reads as a date
    assert "## Sheet: Owners" in text


def test_documents_are_cut_at_their_headings() -> None:
    for name in ("design.docx", "design.odt", "book.epub", "roadmap.pptx", "list.mbox"):
        text = extract_text(name, (FIXTURES / name).read_bytes())
        assert chunk_file(text, language_of(name)).strategy == "headings", name


def test_the_format_table_says_what_reads_each_format() -> None:
    rows = {row.format.language: row for row in format_status()}
    assert set(rows) == {f.language for f in DOCUMENTS}
    assert rows["docx"].installed and rows["docx"].extensions == (".docx", ".docm")
    assert rows["rtf"].format.package == "striprtf" and rows["rtf"].installed


def test_a_document_skipped_as_binary_before_its_reader_existed_is_read_now(
        tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    import semlith.index.cutting
    from semlith.ingest.extract import Binary

    root = tmp_path / "docs"
    root.mkdir()
    shutil.copy(FIXTURES / "design.docx", root / "design.docx")

    def as_before(rel: str, data: bytes, *, opted_in: bool = False) -> str:
        raise Binary()  # what a semlith without document readers made of a .docx

    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))

    def run() -> int:
        return library.index([str(root)]).indexed

    with monkeypatch.context() as patch:
        patch.setattr(semlith.index.cutting, "read_document", as_before)
        assert run() == 0
    assert run() == 1


def test_semlith_formats_lists_each_format_and_its_reader() -> None:
    from click.testing import CliRunner

    from semlith.cli import main

    result = CliRunner().invoke(main, ["formats"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert len(lines) == len(DOCUMENTS)
    assert any(line.startswith("rtf ") and "striprtf" in line and line.endswith("installed")
               for line in lines)


def test_a_missing_reader_is_a_skip_that_names_the_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from semlith.ingest.extract import Unreadable

    for name in ("striprtf", "striprtf.striprtf"):  # None there: importing it fails
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "semlith.ingest.formats.rtf", raising=False)
    monkeypatch.setattr("importlib.util.find_spec",
                        lambda name, *a: None if name == "striprtf" else object())
    with pytest.raises(Unreadable, match=r"reader not installed \(striprtf\); "
                                         r"pip install striprtf"):
        extract_text("design.rtf", (FIXTURES / "design.rtf").read_bytes())
    rtf = next(row for row in format_status() if row.format.language == "rtf")
    assert not rtf.installed and rtf.note == "pip install striprtf"
