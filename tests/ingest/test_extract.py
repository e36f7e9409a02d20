"""extract_text on real files: PDFs, notebooks, HTML, and text in its awkward encodings."""

from __future__ import annotations

import codecs
import io
import json
import logging
import re
from pathlib import Path

import pytest
from pypdf import PdfWriter

from semlith.ingest.extract import MAX_TEXT_CHARS, Binary, Unreadable, extract_text, is_binary
from semlith.ingest.formats.notebook import MAX_OUTPUT_CHARS
from semlith.ingest.formats.pdf import MAX_PDF_PAGES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "extract"


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def blank_pdf(pages: int, password: str | None = None) -> bytes:
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=72, height=72)
    if password is not None:
        writer.encrypt(password)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


# -- PDF ---------------------------------------------------------------------------------


def test_pdf_text_of_each_page_with_a_marker_line() -> None:
    assert extract_text("docs/hello.pdf", fixture("hello.pdf")) == (
        "--- page 1 ---\nHello from semlith\n--- page 2 ---\nThe second page mentions quaternions"
    )


def test_pdf_extension_is_case_insensitive() -> None:
    assert "quaternions" in extract_text("HELLO.PDF", fixture("hello.pdf"))


def test_pdf_stops_at_the_page_limit() -> None:
    text = extract_text("long.pdf", blank_pdf(MAX_PDF_PAGES + 3))
    assert text.count("--- page ") == MAX_PDF_PAGES
    assert f"--- page {MAX_PDF_PAGES} ---" in text


@pytest.mark.parametrize(
    "data",
    [
        fixture("corrupt.pdf"),
        b"",
        fixture("hello.pdf")[:300],
        bytes(range(256)) * 8,  # binary junk: still judged as a PDF, by its extension
    ],
    ids=["cut-off", "empty", "truncated", "junk"],
)
def test_corrupt_pdf_is_unreadable_with_a_short_reason(data: bytes) -> None:
    with pytest.raises(Unreadable) as caught:
        extract_text("broken.pdf", data)
    assert type(caught.value) is Unreadable  # not Binary
    reason = str(caught.value)
    assert reason.startswith("corrupt PDF: ")
    assert "\n" not in reason
    assert len(reason) < 250


def test_encrypted_pdf_is_unreadable_unless_the_password_is_empty() -> None:
    with pytest.raises(Unreadable, match=r"^encrypted PDF$"):
        extract_text("locked.pdf", blank_pdf(1, password="s3cret"))
    assert extract_text("open.pdf", blank_pdf(1, password="")).startswith("--- page 1 ---")


def test_pdf_repairs_are_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    # A wrong startxref offset: pypdf recovers, and would log warnings while doing so.
    data = re.sub(rb"startxref\n\d+", b"startxref\n9999", fixture("hello.pdf"))
    with caplog.at_level(logging.DEBUG):
        text = extract_text("moved.pdf", data)
    assert "quaternions" in text
    assert [record.getMessage() for record in caplog.records] == []


# -- notebooks ---------------------------------------------------------------------------


def test_notebook_cells_in_order_with_markers_and_text_outputs() -> None:
    text = extract_text("analysis.ipynb", fixture("notebook.ipynb"))
    markers = [line for line in text.split("\n") if line.startswith("# %% [")]
    assert markers == ["# %% [markdown]"] + ["# %% [code]"] * 4 + ["# %% [raw]"]
    assert text.startswith("# %% [markdown]\n# Orbital mechanics\n\nWe compute the *apoapsis*")
    assert (
        "apoapsis * 2\n# output: apoapsis is 42.0\n# output: 84.0\n\n# %% [code]\nplot_orbit()\n"
    ) in text
    assert "# output: ZeroDivisionError: division by zero" in text
    assert text.endswith("# %% [raw]\nraw text stays")


def test_notebook_drops_images_and_bounds_long_outputs() -> None:
    text = extract_text("analysis.ipynb", fixture("notebook.ipynb"))
    assert "AAECAwQF" not in text  # the start of the fixture's base64 "image"
    assert "\x1b" not in text  # tracebacks are ANSI-coloured; only ename: evalue is kept
    loop = text.split("for i in range(500): print(i)\n", 1)[1].split("\n\n", 1)[0]
    lines = loop.split("\n")
    assert all(line.startswith("# output: ") for line in lines)
    kept = "\n".join(line.removeprefix("# output: ") for line in lines)
    assert kept.startswith("0\n1\n2\n")
    assert kept.endswith(" ...")
    assert len(kept) == MAX_OUTPUT_CHARS + len(" ...")


def test_notebook_tolerates_odd_cells() -> None:
    notebook = {
        "cells": [
            "not a cell",
            {"cell_type": "code", "source": ["x = 1\r\n"], "outputs": [None, {"data": 3}]},
            {"cell_type": "markdown", "source": 42},
        ]
    }
    text = extract_text("odd.ipynb", json.dumps(notebook).encode())
    assert text == "# %% [code]\nx = 1\n\n# %% [markdown]\n"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'{"cells": [', "invalid notebook JSON: "),
        (b"\x00\x01binary", "invalid notebook JSON: "),
        (b"[1, 2]", "invalid notebook: the top level is not an object"),
    ],
)
def test_invalid_notebook_is_unreadable(data: bytes, reason: str) -> None:
    with pytest.raises(Unreadable) as caught:
        extract_text("bad.ipynb", data)
    assert type(caught.value) is Unreadable
    assert str(caught.value).startswith(reason)


# -- HTML --------------------------------------------------------------------------------


def test_html_keeps_every_line_where_it_is_on_disk() -> None:
    data = fixture("page.html")
    source = data.decode().split("\n")
    text = extract_text("site/page.html", data).split("\n")
    assert len(text) == len(source)
    assert "zeppelin" in source[37 - 1]
    assert "zeppelin" in text[37 - 1]
    assert "first paragraph" in text[21 - 1]
    assert text[28 - 1] == "def keep():"
    assert "attribute lines" in text[33 - 1]
    assert "alpha beta" in text[25 - 1]  # cells stay separate words
    assert "A newline character reference does not add a line." in text[39 - 1]


def test_html_drops_tags_scripts_and_styles_and_unescapes_entities() -> None:
    text = extract_text("page.htm", fixture("page.html"))
    assert "Fixture page & friends" in text
    assert "indexing <code> and \u201csearch\u201d." in text
    for gone in ("not page text", "font-family", "console.log", "<li>", "a comment", "title="):
        assert gone not in text


def test_html_newline_references_do_not_add_lines() -> None:
    assert extract_text("c.html", b"<p>a&#10;b&NewLine;c&#13;d</p>\ne") == " a b c d\ne"


def test_html_with_crlf_and_unclosed_markup() -> None:
    assert extract_text("a.xhtml", b"<p>one</p>\r\n<p>two</p>\r\n") == " one\n two\n"
    assert extract_text("b.html", b"<div>text\n<span class='x\n").count("\n") == 2


# -- text ----------------------------------------------------------------------------------


def test_invalid_utf8_is_replaced_not_raised() -> None:
    assert extract_text("a.py", b"ok \xff\xfe bad \xc3(") == "ok \ufffd\ufffd bad \ufffd("


def test_utf8_bom_is_stripped() -> None:
    assert extract_text("a.py", codecs.BOM_UTF8 + "print('h\u00e9')\n".encode()) == (
        "print('h\u00e9')\n"
    )


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_with_a_bom_is_text(encoding: str) -> None:
    bom = codecs.BOM_UTF16_LE if encoding.endswith("le") else codecs.BOM_UTF16_BE
    data = bom + "h\u00e9llo\r\nw\u00f6rld\n".encode(encoding)
    assert not is_binary(data)
    assert extract_text("notes.txt", data) == "h\u00e9llo\nw\u00f6rld\n"


def test_crlf_and_lone_cr_become_lf() -> None:
    assert extract_text("a.txt", b"one\r\ntwo\rthree\n\r\nfive") == "one\ntwo\nthree\n\nfive"


def test_nul_in_the_first_8_kib_is_binary() -> None:
    data = b"x" * 8000 + b"\x00" + b"y" * 100
    assert is_binary(data)
    with pytest.raises(Binary) as caught:
        extract_text("blob.dat", data)
    assert str(caught.value) == "binary"
    assert isinstance(caught.value, Unreadable)


def test_nul_after_8_kib_is_still_text() -> None:
    data = b"x" * 8192 + b"\x00tail"
    assert not is_binary(data)
    assert extract_text("log.txt", data).endswith("\x00tail")


def test_mostly_invalid_utf8_is_binary_though_its_head_has_no_nul() -> None:
    # A design file's XML metadata, then compressed streams (ky's media/logo.ai was 598
    # lines of mojibake in search results).
    noise = bytes(range(0x80, 0x100)) * 400
    with pytest.raises(Binary):
        extract_text("media/logo.psd", b"<?xpacket begin?>\n" * 10 + noise)
    latin1 = "caf\u00e9 na\u00efve r\u00e9sum\u00e9 of a legacy file\n".encode("latin-1") * 50
    assert "caf\ufffd" in extract_text("notes.txt", latin1)  # text with a few bad bytes
    assert extract_text("n_array_invalid_utf8.json", b'["\xff"]') == '["\ufffd"]'  # on purpose


def test_a_pdf_under_another_name_is_read_as_a_pdf() -> None:
    with pytest.raises(Unreadable) as caught:  # a truncated PDF: the PDF reader's error
        extract_text("media/logo.ai", b"%PDF-1.6\n1 0 obj<</Type/Catalog>>endobj\n")
    assert str(caught.value).startswith("corrupt PDF")


def test_known_text_extension_with_binary_content_is_binary() -> None:
    with pytest.raises(Binary):
        extract_text("compiled.py", b"\x00\x01\x02")


def test_huge_single_line_is_bounded() -> None:
    text = extract_text("minified.js", b"a" * 50_000_000)
    assert isinstance(text, str)
    assert len(text) == MAX_TEXT_CHARS


def test_empty_file_is_empty_text() -> None:
    assert extract_text("empty.py", b"") == ""
