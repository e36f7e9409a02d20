"""Document readers: semlith's against the registry's, on large generated files.

usage:
  python benchmarks/formats.py make DIR   # writes big.* (needs python-docx, openpyxl,
                                          # python-pptx and LibreOffice's soffice)
  python benchmarks/formats.py run DIR [--repeat 3] [--only docx,xlsx]

Each (reader, file) runs in a fresh process: the file is read and the reader imported,
then the extraction runs `--repeat` times; the p50 time and the peak RSS above the
baseline (VmHWM: C allocations of lxml or calamine count too) are printed. Comparison
readers that are not installed are left out with a note. The numbers are recorded in
docs/performance.md ("Document formats").
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

WORDS = ("retry backoff queue shard vector index catalog chunk daemon socket token budget "
         "latency error policy").split()


# -- readers ---------------------------------------------------------------------------

def _semlith(name: str) -> Callable[[bytes], int]:
    from semlith.ingest.extract import extract_text

    return lambda data: len(extract_text(name, data))


def _python_docx(data: bytes) -> int:
    import docx

    document = docx.Document(io.BytesIO(data))
    # Style ids, not `paragraph.style` (a lookup per paragraph that took 258 s here).
    return sum(len(p.text) + len(p._p.style or "") for p in document.paragraphs)


def _openpyxl(data: bytes) -> int:
    import openpyxl

    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    return sum(len(str(v)) for sheet in book.worksheets
               for row in sheet.iter_rows(values_only=True) for v in row if v is not None)


def _calamine(data: bytes) -> int:
    from python_calamine import CalamineWorkbook

    book = CalamineWorkbook.from_filelike(io.BytesIO(data))
    return sum(len(str(v)) for name in book.sheet_names
               for row in book.get_sheet_by_name(name).to_python() for v in row)


def _python_pptx(data: bytes) -> int:
    import pptx

    deck = pptx.Presentation(io.BytesIO(data))
    return sum(len(shape.text_frame.text) for slide in deck.slides for shape in slide.shapes
               if shape.has_text_frame)


def _odfpy(data: bytes) -> int:
    from odf import teletype, text
    from odf.opendocument import load

    document = load(io.BytesIO(data))
    return sum(len(teletype.extractText(p)) for p in document.getElementsByType(text.P))


def _ebooklib(data: bytes) -> int:
    import tempfile

    from ebooklib import ITEM_DOCUMENT, epub

    with tempfile.NamedTemporaryFile(suffix=".epub") as file:
        file.write(data)
        file.flush()
        book = epub.read_epub(file.name)
    return sum(len(item.get_content()) for item in book.get_items_of_type(ITEM_DOCUMENT))


def _stdlib_mailbox(data: bytes) -> int:
    import email.policy
    import mailbox
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".mbox") as file:
        file.write(data)
        file.flush()
        box = mailbox.mbox(file.name, factory=None)
        total = 0
        for message in box:
            parsed = email.message_from_bytes(message.as_bytes(), policy=email.policy.default)
            body = parsed.get_body(preferencelist=("plain",))  # type: ignore[attr-defined]
            total += len(str(parsed["subject"])) + (len(body.get_content()) if body else 0)
        return total


# file suffix -> reader name -> function
READERS: dict[str, dict[str, Callable[[bytes], int]] | dict[str, object]] = {
    "docx": {"semlith": "docx", "python-docx": _python_docx},
    "xlsx": {"semlith": "xlsx", "openpyxl": _openpyxl, "python-calamine": _calamine},
    "pptx": {"semlith": "pptx", "python-pptx": _python_pptx},
    "odt": {"semlith": "odt", "odfpy": _odfpy},
    "ods": {"semlith": "ods", "odfpy": _odfpy, "python-calamine": _calamine},
    "odp": {"semlith": "odp", "odfpy": _odfpy},
    "epub": {"semlith": "epub", "ebooklib": _ebooklib},
    "rtf": {"semlith": "rtf"},
    "eml": {"semlith": "eml"},
    "mbox": {"semlith": "mbox", "stdlib mailbox": _stdlib_mailbox},
}


def _peak_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as refs:  # resets VmHWM to the current RSS
        refs.write("5")


def one(reader: str, path: Path, repeat: int) -> dict[str, float]:
    """Time and peak memory of one reader on one file (run in its own process)."""
    suffix = path.suffix.lstrip(".")
    entry = READERS[suffix][reader]
    func = _semlith(path.name) if isinstance(entry, str) else entry
    data = path.read_bytes()
    assert callable(func)
    func(data[:0] if False else data)  # warm-up: imports, caches
    _reset_peak()
    base = _peak_mb()
    times, size = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        size = func(data)
        times.append(time.perf_counter() - start)
    return {"p50_s": statistics.median(times), "peak_mb": _peak_mb() - base, "chars": size}


def run(folder: Path, repeat: int, only: set[str]) -> None:
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}; repeat {repeat}")
    print(f"{'file':12} {'MB':>6} {'reader':16} {'p50 s':>8} {'peak MB':>8} {'chars':>10}")
    for suffix, readers in READERS.items():
        path = folder / f"big.{suffix}"
        if (only and suffix not in only) or not path.exists():
            continue
        for reader in readers:
            proc = subprocess.run([sys.executable, __file__, "one", reader, str(path),
                                   str(repeat)], capture_output=True, text=True)
            if proc.returncode != 0:
                last = (proc.stderr.strip().splitlines() or ["?"])[-1]
                print(f"{path.name:12} {'':>6} {reader:16} failed: {last[:70]}")
                continue
            got = json.loads(proc.stdout)
            print(f"{path.name:12} {path.stat().st_size / 1e6:6.1f} {reader:16} "
                  f"{got['p50_s']:8.2f} {got['peak_mb']:8.0f} {got['chars']:10,}")
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


# -- making the files --------------------------------------------------------------------

def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(WORDS, k=n))


def make(folder: Path) -> None:
    """~5-15 MB of text per format, written by the registry's writers and LibreOffice."""
    import datetime
    import shutil
    import tempfile
    from email.message import EmailMessage

    import docx
    import openpyxl
    import pptx

    rng = random.Random(1)
    folder.mkdir(parents=True, exist_ok=True)
    document = docx.Document()
    for n in range(20_000):
        if n % 25 == 0:
            document.add_heading(f"Section {n // 25}: {_sentence(rng, 3)}", 1 + n // 25 % 3)
        document.add_paragraph(_sentence(rng, 40))
    document.save(str(folder / "big.docx"))
    book = openpyxl.Workbook(write_only=True)
    for s in range(3):
        sheet = book.create_sheet(f"Sheet {s}")
        sheet.append(["code", "message", "count", "ratio", "when"])
        for n in range(100_000):
            sheet.append([f"E{n}", _sentence(rng, 6), n, rng.random(),
                          datetime.date(2024, 1, 1) + datetime.timedelta(days=n % 1000)])
    book.save(str(folder / "big.xlsx"))
    deck = pptx.Presentation()
    for n in range(1000):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Slide topic {n}: {_sentence(rng, 3)}"
        slide.placeholders[1].text_frame.text = _sentence(rng, 50)
        slide.notes_slide.notes_text_frame.text = _sentence(rng, 20)
    deck.save(str(folder / "big.pptx"))
    for source, target in (("docx", "odt"), ("docx", "rtf"), ("docx", "epub"),
                           ("xlsx", "ods"), ("pptx", "odp")):
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["soffice", "--headless", "--convert-to", target, "--outdir", tmp,
                            str(folder / f"big.{source}")], check=True, capture_output=True)
            shutil.move(next(Path(tmp).iterdir()), folder / f"big.{target}")
    box = io.BytesIO()
    for n in range(10_000):
        message = EmailMessage()
        message["From"], message["To"] = "a@example.org", "b@example.org"
        message["Subject"] = f"note {n}: {_sentence(rng, 4)}"
        message.set_content("\n".join(_sentence(rng, 12) for _ in range(8)))
        box.write(b"From a@example.org Mon Jun  2 09:30:00 2025\n" + bytes(message) + b"\n")
    (folder / "big.mbox").write_bytes(box.getvalue())
    mail = EmailMessage()
    mail["Subject"] = "design review"
    mail.set_content(_sentence(rng, 100))
    mail.add_attachment((folder / "big.docx").read_bytes(), maintype="application",
                        subtype="octet-stream", filename="design.docx")
    (folder / "big.eml").write_bytes(bytes(mail))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("make").add_argument("folder", type=Path)
    runner = sub.add_parser("run")
    runner.add_argument("folder", type=Path)
    runner.add_argument("--repeat", type=int, default=3)
    runner.add_argument("--only", default="")
    single = sub.add_parser("one")
    single.add_argument("reader")
    single.add_argument("path", type=Path)
    single.add_argument("repeat", type=int)
    args = parser.parse_args()
    if args.command == "make":
        make(args.folder)
    elif args.command == "run":
        run(args.folder, args.repeat, {s for s in args.only.split(",") if s})
    else:
        print(json.dumps(one(args.reader, args.path, args.repeat)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
