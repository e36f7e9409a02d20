"""Hostile documents: each ends as one skip with a reason, or partial text, and fast."""

from __future__ import annotations

import base64
from email.message import EmailMessage
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.ingest.extract import Unreadable, extract_text
from semlith.ingest.formats import limits, mail, package
from semlith.local import LocalLibrary
from semlith.store import Store
from tests.conftest import HashEmbedder
from tests.format_builders import (
    W_NS,
    docx,
    docx_body,
    ods,
    paragraph,
    set_expanded_size,
    set_flag_bits,
    xlsx,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "formats"
ZIPPED = ["design.docx", "errors.xlsx", "roadmap.pptx", "design.odt", "errors.ods",
          "roadmap.odp", "book.epub"]


def unreadable(name: str, data: bytes) -> str:
    with pytest.raises(Unreadable) as caught:
        extract_text(name, data)
    return str(caught.value)


# -- zip containers ----------------------------------------------------------------------

def test_a_zip_bomb_is_refused_from_its_directory_before_reading() -> None:
    reason = unreadable("bomb.docx", docx(b" " * (40 << 20)))
    assert "zip bomb" in reason and "word/document.xml" in reason and "100x" in reason


def test_a_directory_that_understates_a_size_reads_no_more_than_it_says() -> None:
    honest = docx_body(paragraph("hello") * 20_000)
    reason = unreadable("lying.docx", set_expanded_size(honest, 300))
    assert "word/document.xml" in reason  # bad CRC or XML cut at 300 bytes; not 500 KB


def test_entries_are_counted_before_the_directory_is_parsed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(package, "MAX_ZIP_ENTRIES", 10)
    assert extract_text("few.docx", docx_body(paragraph("two entries"))) == "two entries"
    many = _zip_of({f"media/{n}.bin": b"" for n in range(50)})
    assert "50 zip entries (more than 10)" in unreadable("many.docx", many)


def test_a_part_past_the_member_cap_gives_partial_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(package, "MAX_MEMBER_BYTES", 100_000)
    body = "".join(paragraph(f"paragraph {n}") for n in range(10_000))  # ~400 KB
    text = extract_text("long.docx", docx_body(body))
    assert text.startswith("paragraph 0\n\nparagraph 1\n") and "paragraph 9999" not in text
    assert text.endswith("[truncated: word/document.xml expands past 100,000 bytes]")


def test_a_document_past_the_expanded_cap_gives_partial_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(package, "MAX_EXPANDED_BYTES", 8_000)  # the deck reads ~11 KB
    text = extract_text("roadmap.pptx", (FIXTURES / "roadmap.pptx").read_bytes())
    assert "## Slide 1: Roadmap" in text and "Slide 3" not in text
    assert text.endswith("[truncated: the document expands past 8,000 bytes]")


@pytest.mark.parametrize("name", ZIPPED)
def test_a_truncated_archive_is_one_clear_skip(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    assert "corrupt or truncated zip" in unreadable(name, data[: len(data) // 2])


@pytest.mark.parametrize("name", [*ZIPPED, "design.rtf", "outage.eml"])
def test_random_bytes_are_one_clear_skip(name: str) -> None:
    junk = bytes(range(256)) * 40
    if name.endswith((".rtf", ".eml")):
        # Not zips: RTF needs its header; any bytes are some mail message.
        if name.endswith(".rtf"):
            assert "does not start with {\\rtf" in unreadable(name, junk)
        else:
            assert extract_text(name, junk).startswith("## Message: (no subject)")
        return
    assert "corrupt or truncated zip" in unreadable(name, junk)


def test_malformed_xml_names_the_part() -> None:
    reason = unreadable("cut.docx", docx(f'<w:document xmlns:w="{W_NS}"><w:body><w:p>'))
    assert reason.startswith("word/document.xml: malformed XML")


def test_a_missing_main_part_is_one_clear_skip() -> None:
    assert "no main document part" in unreadable("empty.docx", _zip_of({"a.txt": "hello"}))


def _zip_of(parts: dict[str, bytes | str]) -> bytes:
    from tests.format_builders import package as build

    return build(parts)


# -- encryption ----------------------------------------------------------------------------

def test_an_encrypted_office_file_is_skipped_as_password_protected() -> None:
    data = (FIXTURES / "encrypted.docx").read_bytes()
    assert unreadable("encrypted.docx", data) == \
        "encrypted Word document (password-protected)"


def test_a_legacy_compound_file_is_named_as_such() -> None:
    data = package.CFB_MAGIC + b"\x00" * 4000
    assert "OLE2 compound file" in unreadable("old.xlsx", data)


def test_an_encrypted_zip_member_is_skipped() -> None:
    data = set_flag_bits(docx_body(paragraph("secret")), 0x1)
    assert "encrypted (password-protected)" in unreadable("locked.docx", data)


def test_an_encrypted_opendocument_is_skipped() -> None:
    manifest = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:'
        'manifest:1.0"><manifest:file-entry manifest:full-path="content.xml">'
        '<manifest:encryption-data manifest:checksum="x"/></manifest:file-entry>'
        '</manifest:manifest>')
    data = _zip_of({"META-INF/manifest.xml": manifest, "content.xml": b"\x8f\x00garbled"})
    assert unreadable("locked.odt", data) == "encrypted OpenDocument text (password-protected)"


def test_a_drm_epub_is_skipped_but_obfuscated_fonts_are_not_drm() -> None:
    from zipfile import ZipFile

    with ZipFile(FIXTURES / "book.epub") as book:
        parts: dict[str, bytes | str] = {n: book.read(n) for n in book.namelist()}
    encryption = ('<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                  'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
                  '<enc:CipherData><enc:CipherReference URI="{}"/></enc:CipherData>'
                  '</enc:EncryptedData></encryption>')
    fonts = {**parts, "META-INF/encryption.xml": encryption.format("OEBPS/font.otf")}
    assert "## Fusion" in extract_text("book.epub", _zip_of(fonts))
    drm = {**parts, "META-INF/encryption.xml": encryption.format("OEBPS/c1.xhtml")}
    assert unreadable("book.epub", _zip_of(drm)) == "EPUB book: DRM-encrypted chapters"


# -- XML -------------------------------------------------------------------------------------

def test_deeply_nested_xml_is_refused_at_the_depth_cap() -> None:
    deep = f'<w:document xmlns:w="{W_NS}">' + "<w:p>" * 100_000 + "</w:p>" * 100_000 + \
        "</w:document>"
    # Stored, not deflated: 100,000 nested tags compress 645x, past the zip bomb cap.
    assert "nested deeper than 256 levels" in unreadable("deep.docx", docx(deep, stored=True))


@pytest.mark.parametrize("doctype", [
    '<!DOCTYPE w:document [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
    '<!DOCTYPE w:document [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',
    '<!DOCTYPE w:document SYSTEM "http://127.0.0.1:9/evil.dtd">',
], ids=["external-entity", "entity-expansion", "external-dtd"])
def test_no_xml_with_a_doctype_is_read(doctype: str) -> None:
    document = f'<?xml version="1.0"?>{doctype}<w:document xmlns:w="{W_NS}"><w:body>' \
               f'{paragraph("&x;")}</w:body></w:document>'
    assert "DOCTYPE" in unreadable("xxe.docx", docx(document))


def test_an_epub_chapter_with_entities_expands_none() -> None:
    from zipfile import ZipFile

    with ZipFile(FIXTURES / "book.epub") as book:
        parts: dict[str, bytes | str] = {n: book.read(n) for n in book.namelist()}
    parts["OEBPS/c0.xhtml"] = ('<?xml version="1.0"?><!DOCTYPE html [<!ENTITY xxe SYSTEM '
                               '"file:///etc/passwd">]><html><body><h1>T</h1><p>&xxe;</p>'
                               '</body></html>')
    text = extract_text("book.epub", _zip_of(parts))
    assert "root:" not in text and "## Fusion" in text


# -- spreadsheets ------------------------------------------------------------------------------

def test_a_million_empty_rows_stop_at_the_row_cap() -> None:
    first = '<row r="1"><c r="A1" t="inlineStr"><is><t>code</t></is></c></row>'
    empty = "".join(f'<row r="{n}"/>' for n in range(2, 1_000_002))
    text = extract_text("empty.xlsx", xlsx(first + empty))
    assert text.split("\n")[:4] == ["## Sheet: Data", "", "### Data, row 1", "| code |"]
    assert text.endswith("[truncated: sheet 'Data' has more than 100,000 rows]")


def test_repeated_empty_opendocument_rows_and_cells_are_never_expanded() -> None:
    cell = '<table:table-cell><text:p>{}</text:p></table:table-cell>'
    rows = (f'<table:table-row>{cell.format("code")}</table:table-row>'
            '<table:table-row table:number-rows-repeated="1048575"><table:table-cell '
            'table:number-columns-repeated="16384"/></table:table-row>')
    assert extract_text("blank.ods", ods(rows)).endswith("### Data, row 1\n| code |")


def test_a_repeated_full_row_counts_every_copy() -> None:
    rows = ('<table:table-row table:number-rows-repeated="5000000"><table:table-cell '
            'table:number-columns-repeated="3"><text:p>x</text:p></table:table-cell>'
            '</table:table-row>')
    text = extract_text("full.ods", ods(rows))
    assert text.endswith("[truncated: sheet 'Data' has more than 100,000 rows]")
    assert "| x | x | x |" in text


def test_a_wide_row_is_cut_and_says_so() -> None:
    cells = "".join(f'<c r="{_column(n)}1" t="inlineStr"><is><t>v{n}</t></is></c>'
                    for n in range(600))
    text = extract_text("wide.xlsx", xlsx(f'<row r="1">{cells}</row>'))
    assert "v511 |" in text and "v512" not in text
    assert "(rows of sheet 'Data' cut at 512 cells)" in text


def _column(n: int) -> str:
    letters = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


# -- mail --------------------------------------------------------------------------------------

def _mbox(count: int) -> bytes:
    return b"".join(
        b"From a@example.org Mon Jun  2 09:30:00 2025\nFrom: a@example.org\n"
        b"Subject: note %d\n\nBody %d.\n\n" % (n, n) for n in range(count))


@pytest.mark.slow
def test_a_ten_thousand_message_mbox_is_read_within_the_caps() -> None:
    text = extract_text("big.mbox", _mbox(10_000))
    assert text.count("## Message: note") == 10_000 and "truncated" not in text


def test_messages_past_the_mbox_cap_are_left_out_and_said(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mail, "MAX_MBOX_MESSAGES", 100)
    text = extract_text("big.mbox", _mbox(150))
    assert text.count("## Message: note") == 100
    assert text.endswith("[truncated: the mailbox has 150 messages; the first 100 were read]")


@pytest.mark.slow
def test_a_mail_with_a_50_mb_attachment_gives_its_text_and_lists_the_attachment() -> None:
    message = EmailMessage()
    message["Subject"] = "crash dump"
    message.set_content("See the attached dump of the crash.")
    message.add_attachment(b"%PDF" + b"\x00" * (50 << 20), maintype="application",
                           subtype="pdf", filename="dump.pdf")
    text = extract_text("crash.eml", bytes(message))
    assert "See the attached dump of the crash." in text
    assert "not read: over the 8 MiB attachment cap" in text
    assert "[truncated: the message is" in text


def test_attachments_nest_only_to_the_cap() -> None:
    inner = EmailMessage()
    inner["Subject"] = "level"
    inner.set_content("innermost words")
    for depth in range(limits.MAX_NESTING + 1):
        outer = EmailMessage()
        outer["Subject"] = f"wrapper {depth}"
        outer.set_content("wrapping")
        outer.add_attachment(inner)
        inner = outer
    text = extract_text("nested.eml", bytes(inner))
    assert "innermost words" not in text and "past 2 levels of nesting" in text


def test_an_attachment_that_fails_is_a_line_not_a_lost_mail() -> None:
    message = EmailMessage()
    message["Subject"] = "broken attachment"
    message.set_content("the body survives")
    message.add_attachment(b"PK\x03\x04 not really", maintype="application",
                           subtype="octet-stream", filename="notes.docx")
    text = extract_text("mail.eml", bytes(message))
    assert "the body survives" in text and "(not read: Word document: corrupt" in text
    assert base64.b64encode(b"PK") not in text.encode()


# -- the run goes on ---------------------------------------------------------------------------

def test_an_index_run_skips_each_hostile_file_with_its_reason(tmp_path: Path,
                                                              settings: Settings) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "bomb.docx").write_bytes(docx(b" " * (40 << 20)))
    (root / "locked.docx").write_bytes((FIXTURES / "encrypted.docx").read_bytes())
    (root / "cut.xlsx").write_bytes((FIXTURES / "errors.xlsx").read_bytes()[:3000])
    (root / "good.pptx").write_bytes((FIXTURES / "roadmap.pptx").read_bytes())
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    report = library.index([str(root)])
    assert report.indexed == 1 and report.skipped == 3 and report.complete
    opened = Store.open(root / ".semlith", settings=settings)
    skipped = opened.catalog.skipped()
    opened.close()
    assert "zip bomb" in skipped["bomb.docx"].detail
    assert "password-protected" in skipped["locked.docx"].detail
    assert "corrupt or truncated zip" in skipped["cut.xlsx"].detail


def test_documents_have_a_larger_size_cap_than_other_files(tmp_path: Path) -> None:
    from semlith.ingest.walk import Candidate, Skipped, walk_files

    (tmp_path / "deck.pptx").write_bytes(b"x" * (9 << 20))
    (tmp_path / "notes.txt").write_bytes(b"x" * (9 << 20))
    (tmp_path / "letter.rtf").write_bytes(b"x" * (9 << 20))
    (tmp_path / "huge.eml").write_bytes(b"x" * ((64 << 20) + 1))
    walked = {item.rel: item for item in walk_files(tmp_path)}
    assert isinstance(walked["deck.pptx"], Candidate)
    assert all(isinstance(walked[name], Skipped) for name in ("notes.txt", "letter.rtf",
                                                              "huge.eml"))


def test_a_broken_styles_part_costs_the_headings_not_the_document() -> None:
    from zipfile import ZipFile

    with ZipFile(FIXTURES / "design.docx") as document:
        parts: dict[str, bytes | str] = {n: document.read(n) for n in document.namelist()}
    parts["word/styles.xml"] = b"<w:styles><unclosed>"
    text = extract_text("design.docx", _zip_of(parts))
    assert "Exponential backoff doubles the wait" in text and "# Overview" not in text


def test_cells_at_opposite_corners_of_a_sheet_allocate_nothing_between() -> None:
    # python-calamine aborts the process on this 300-byte file (it asks for 549 GB).
    corners = ('<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c></row>'
               '<row r="1048576"><c r="XFD1048576" t="inlineStr"><is><t>z</t></is></c></row>')
    text = extract_text("corners.xlsx", xlsx(corners))
    assert text.endswith("| a |\n(rows of sheet 'Data' cut at 512 cells)")


def test_an_epub_chapter_of_empty_tags_stops_at_the_element_cap(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from zipfile import ZipFile

    from semlith.ingest.formats import xmlstream

    monkeypatch.setattr(xmlstream, "MAX_XML_ELEMENTS", 5_000)
    with ZipFile(FIXTURES / "book.epub") as book:
        parts: dict[str, bytes | str] = {n: book.read(n) for n in book.namelist()}
    parts["OEBPS/c1.xhtml"] = "<html><body><p>kept</p>" + "<b></b>" * 10_000 + "</body></html>"
    text = extract_text("book.epub", _zip_of(parts))
    assert "kept" in text and text.endswith("[truncated: more than 5,000 HTML elements]")
