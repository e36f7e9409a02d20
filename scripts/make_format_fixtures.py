"""Regenerate fixtures/formats/: one small document of each format semlith reads.

The text is ours (licence-clean). Word, Excel and PowerPoint files are written by
python-docx, openpyxl and python-pptx (whose templates come from Office), and
LibreOffice converts them to OpenDocument, RTF and EPUB, so the fixtures carry the XML
real writers produce. Mail is built with the standard library.

usage: pip install python-docx openpyxl python-pptx msoffcrypto-tool; apt-get install
       libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui;
       python scripts/make_format_fixtures.py
"""

from __future__ import annotations

import datetime
import shutil
import subprocess
import tempfile
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "formats"
FILLER = ("The indexer walks the tree, hashes what changed and embeds the new chunks. "
          "Searches read the shards and rescore the head of the ranking. ")


def design_docx(path: Path) -> None:
    import docx

    doc = docx.Document()
    doc.add_heading("Retry design", level=0)
    doc.add_heading("Overview", level=1)
    doc.add_paragraph(FILLER * 3)
    doc.add_heading("Backoff policy", level=2)
    doc.add_paragraph("Exponential backoff doubles the wait after every failed attempt, "
                      "up to a ceiling of thirty seconds.")
    doc.add_paragraph("jitter spreads the retries of many clients", style="List Bullet")
    doc.add_paragraph("a budget caps the retries per minute", style="List Bullet")
    table = doc.add_table(rows=3, cols=2)
    for row, (key, value) in enumerate([("setting", "default"), ("max_attempts", "5"),
                                        ("ceiling_seconds", "30")]):
        table.cell(row, 0).text, table.cell(row, 1).text = key, value
    doc.add_heading("Storage", level=1)
    doc.add_paragraph(FILLER * 2)
    doc.add_paragraph("The catalog keeps one row per chunk and a generation counter.")
    doc.save(str(path))


def errors_xlsx(path: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Errors"
    sheet.append(["code", "message", "action", "since"])
    for n in range(1, 80):
        sheet.append([f"E{1000 + n}", f"routine condition number {n}", "retry later",
                      datetime.date(2024, 1, 1) + datetime.timedelta(days=n)])
    sheet.append(["E4242", "quota exceeded on the shard writer", "raise the memory budget",
                  datetime.date(2025, 3, 14)])
    owners = book.create_sheet("Owners")
    owners.append(["component", "owner"])
    owners.append(["watcher", "platform team"])
    book.save(str(path))


def roadmap_pptx(path: Path) -> None:
    import pptx

    deck = pptx.Presentation()
    for title, lines, notes in [
        ("Roadmap", ["Three releases this year"], ""),
        ("Vector storage", ["Move the vector shards to memory-mapped files",
                            "Halve the resident memory of a large store"],
         "The speaker notes mention the rollback plan for the shard format."),
        ("Questions", ["Ask in the tracker"], ""),
    ]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = lines[0]
        for line in lines[1:]:
            body.add_paragraph().text = line
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    deck.save(str(path))


def message(subject: str, body: str, sender: str, when: datetime.datetime,
            attach: Path | None = None) -> EmailMessage:
    mail = EmailMessage()
    mail["From"], mail["To"] = sender, "team@example.org"
    mail["Subject"], mail["Date"] = subject, format_datetime(when)
    mail.set_content(body)
    mail.add_alternative(f"<html><body><p>{body}</p></body></html>", subtype="html")
    if attach is not None:
        mail.add_attachment(attach.read_bytes(), maintype="application",
                            subtype="vnd.openxmlformats-officedocument."
                                    "wordprocessingml.document", filename=attach.name)
    return mail


def mail_files(design: Path) -> None:
    when = datetime.datetime(2025, 6, 2, 9, 30, tzinfo=datetime.UTC)
    outage = message("Outage report for the indexer",
                     "The indexer stalled because the lock file was left by a killed run.\n"
                     "We now name the holder of the lock in the error.",
                     "Ops <ops@example.org>", when, attach=design)
    (OUT / "outage.eml").write_bytes(bytes(outage))
    box = b""
    for n, (subject, body) in enumerate([
        ("Weekly notes", "Nothing unusual this week."),
        ("Tokenizer change", "The tokenizer now splits camelCase identifiers before "
                             "stemming them."),
        ("Release", "Version two ships on Thursday."),
    ]):
        mail = message(subject, body, "Dev <dev@example.org>",
                       when + datetime.timedelta(days=n))
        box += b"From dev@example.org Mon Jun  2 09:30:00 2025\n" + bytes(mail) + b"\n"
    (OUT / "list.mbox").write_bytes(box)


_CHAPTER = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title>
<style>p {{ margin: 0 }}</style></head>
<body><h1>{title}</h1>{body}</body></html>
"""


def book_epub(path: Path) -> None:
    """An EPUB 3 as publishers write it: real headings, a DOCTYPE, named references."""
    import zipfile

    chapters = [
        ("Keeping an index current", "<h2>Watching folders</h2><p>The watcher debounces "
         "bursts of file events&nbsp;into one batch.</p><p>" + FILLER + "</p>"),
        ("Answering questions", "<h2>Fusion</h2><p>Reciprocal rank fusion merges the dense "
         "and keyword rankings without tuning their scales.</p><ul><li>dense</li>"
         "<li>keyword</li></ul>"),
    ]
    items = "".join(f'<item id="c{n}" href="c{n}.xhtml" media-type="application/xhtml+xml"/>'
                    for n in range(len(chapters)))
    spine = "".join(f'<itemref idref="c{n}"/>' for n in range(len(chapters)))
    opf = ('<?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org/2007/opf"'
           ' version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/'
           'elements/1.1/"><dc:identifier id="id">semlith-fixture</dc:identifier><dc:title>'
           'Search Notes</dc:title><dc:language>en</dc:language></metadata><manifest>'
           '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" '
           f'properties="nav"/>{items}</manifest><spine>{spine}</spine></package>')
    container = ('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
                 'opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/'
                 'book.opf" media-type="application/oebps-package+xml"/></rootfiles>'
                 '</container>')
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", container, zipfile.ZIP_DEFLATED)
        book.writestr("OEBPS/book.opf", opf, zipfile.ZIP_DEFLATED)
        book.writestr("OEBPS/nav.xhtml", _CHAPTER.format(title="Contents", body=""),
                      zipfile.ZIP_DEFLATED)
        for n, (title, body) in enumerate(chapters):
            book.writestr(f"OEBPS/c{n}.xhtml", _CHAPTER.format(title=title, body=body),
                          zipfile.ZIP_DEFLATED)


def encrypted_docx(source: Path, path: Path) -> None:
    """The Word document encrypted with a password, as Word does (an OLE2 compound file
    holding EncryptionInfo and EncryptedPackage streams)."""
    import io

    from msoffcrypto.format.ooxml import OOXMLFile

    sealed = io.BytesIO()
    with source.open("rb") as plain:
        OOXMLFile(plain).encrypt("fixture-password", sealed)
    path.write_bytes(sealed.getvalue())


def convert(source: Path, target_format: str, name: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["soffice", "--headless", "--convert-to", target_format,
                        "--outdir", tmp, str(source)], check=True, capture_output=True)
        made = next(Path(tmp).iterdir())
        shutil.move(made, OUT / name)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    design, errors, roadmap = OUT / "design.docx", OUT / "errors.xlsx", OUT / "roadmap.pptx"
    design_docx(design)
    errors_xlsx(errors)
    roadmap_pptx(roadmap)
    convert(design, "odt", "design.odt")
    convert(design, "rtf", "design.rtf")
    convert(design, "epub", "design.epub")
    convert(errors, "ods", "errors.ods")
    convert(roadmap, "odp", "roadmap.odp")
    book_epub(OUT / "book.epub")
    encrypted_docx(design, OUT / "encrypted.docx")
    mail_files(design)


if __name__ == "__main__":
    main()
