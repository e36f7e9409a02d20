"""Reading back what a tool printed: a file's lines as indexed, an image's metadata.

Lines come from `ingest/document.py`'s `document_text`, the same function indexing
uses, so a PDF or notebook hit reads back as the extracted text its line numbers point
into, and a file that changed since it was indexed is marked. The file is read through
`ingest/reading.py`, which judges it again as the walk did. A corpus whose files are on
another machine (a mirror) reads back from its chunks instead (`chunk_passage`).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path, PurePosixPath

from semlith.errors import BadTarget, Hint
from semlith.ingest.document import Withheld, document_text
from semlith.ingest.extract import decodes_as_is, extract_text, is_extracted, is_plain
from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.images import is_image, preview, read_image
from semlith.ingest.reading import content_hash, limit_for, read_file
from semlith.ingest.secrets import rules_fingerprint, secret_content
from semlith.local.locators import Target
from semlith.local.scope import Known
from semlith.store import FileRecord, Store
from semlith.types import ChunkRecord, Passage


def chunk_passage(label: str, target: Target, records: Sequence[ChunkRecord],
                  max_lines: int) -> Passage:
    """A file as its chunks hold it (a mirror's: the file is on the indexer's machine).
    Lines no chunk holds read as empty."""
    lines: dict[int, str] = {}
    for record in records:
        for n, line in enumerate(record.text.split("\n"), start=record.start_line):
            lines.setdefault(n, line)
    total = max(lines)
    start = target.start or 1
    if start > total:
        raise BadTarget(f"{target.path!r} has {total} lines; line {start} does not exist")
    end = min(target.end or total, total, start + max_lines - 1)
    return Passage(label, records[0].path, start, end,
                   tuple(lines.get(n, "") for n in range(start, end + 1)), total)


def file_passage(label: str, store: Store, target: Target, max_lines: int,
                 include_image: bool = False) -> Passage:
    """The lines of an indexed file as indexed, read now and checked to stay in the root."""
    rel = posix(target.path)
    record = store.corpus.file(rel)
    if record is None:
        raise BadTarget(f"{target.path!r} is not an indexed file of store {label!r}",
                        hint=Hint.LIST_FILES)
    path = _inside_root(store.root, rel)
    if is_image(rel):
        data = _read(path, rel)
        return _image_passage(label, rel, data, include_image,
                              changed=record.hash not in ("", content_hash(data)))
    served, changed = served_text(store, record, path)
    lines = served.decode().split("\n")
    start = target.start or 1
    if start > len(lines):
        raise BadTarget(f"{target.path!r} has {len(lines)} lines; line {start} does not exist")
    end = min(target.end or len(lines), len(lines), start + max_lines - 1)
    return Passage(label, rel, start, end, tuple(lines[start - 1:end]), len(lines),
                   changed=changed, extracted=is_extracted(rel))


def served_text(store: Store, record: FileRecord, path: Path) -> tuple[bytes, bool]:
    """The text `read` serves of an indexed file that is not an image, as UTF-8 with
    "\\n" line ends, and whether the file changed since it was indexed.

    A plain text file unchanged since it was indexed, under the same secret rules, that
    had nothing redacted is not redacted again (it would find nothing: the scan was 40 %
    of a grep's time, and loading the rules most of a fresh CLI's; issue #45), and in
    UTF-8 it is served as its bytes. Anything else goes through `document_text`, as
    indexing did. Raises BadTarget when the file cannot be
    read now or is withheld as a secret."""
    rel = record.path
    data = _read(path, rel)
    digest = content_hash(data)
    if digest == record.hash and record.redacted == 0 and record.rules == _rules() and \
            is_plain(rel, data) and secret_content(rel, data) is None:
        if decodes_as_is(data):
            return data, False
        try:  # CRLF, a BOM, bad bytes: decoded as indexing did, and nothing to redact
            return extract_text(rel, data).encode(), False
        except Unreadable as exc:
            raise BadTarget(f"{rel!r} cannot be read as text now ({exc})") from None
    from semlith.ingest.walk import is_opted_in  # the walk's rules: only a file redacted

    try:  # what was indexed, as it was indexed: secrets withheld or redacted
        opted_in = secret_content(rel, data) is None or \
            is_opted_in(store.root, rel, exclude=[store.folder])
        text = document_text(rel, data, opted_in=opted_in)
    except Withheld as exc:
        raise BadTarget(f"{rel!r} is withheld as a secret ({exc}); semlith does not "
                        "serve it") from None
    except Unreadable as exc:
        raise BadTarget(f"{rel!r} cannot be read as text now ({exc})") from None
    return text.encode(), record.hash not in ("", digest)


@cache
def _rules() -> str:
    return rules_fingerprint()  # reads package metadata: once a process


def _read(path: Path, rel: str) -> bytes:
    try:  # the type and size checked again now, as the walk checked them
        return read_file(path, limit_for(rel))
    except OSError as exc:
        raise BadTarget(f"{rel!r} cannot be read now ({exc.strerror}); "
                        "it may have been deleted or replaced") from None


def _image_passage(label: str, rel: str, data: bytes, include_image: bool,
                   changed: bool) -> Passage:
    """An image file read: its metadata as one line, and its downscaled copy if asked."""
    try:
        image = read_image(data)
        shown, mime = preview(data) if include_image else (b"", "")
    except Unreadable as exc:
        raise BadTarget(f"{rel!r} cannot be read as an image now ({exc})") from None
    line = (f"image {image.width}x{image.height} {image.format}, {len(data):,} bytes"
            + (f"; attached as {mime}, {len(shown):,} bytes" if shown else ""))
    return Passage(label, rel, 1, 1, (line,), 1, changed=changed,
                   image=base64.b64encode(shown).decode("ascii"), image_mime=mime)


def with_symbol(passage: Passage, symbol: str) -> Passage:
    return replace(passage, symbol=symbol)


def _inside_root(root: Path, rel: str) -> Path:
    """`rel` under `root`, refused when it climbs out (`..`, absolute, a symlink out)."""
    pure = PurePosixPath(rel)
    if pure.is_absolute() or ".." in pure.parts or not rel.strip():
        raise BadTarget(f"{rel!r} is not a path relative to the store's root")
    real_root = root.resolve()
    path = (real_root / pure).resolve()
    if path != real_root and real_root not in path.parents:
        raise BadTarget(f"{rel!r} leads outside the store's root")
    return path


class RootPaths:
    """The real paths of the files under one root, for a run of reads (a grep): each
    folder is resolved once, and each file's own link, if it is one. A path that climbs
    out of the root (`..`, absolute, a symlink out) is refused, as `_inside_root` does."""

    def __init__(self, root: Path) -> None:
        self.real = os.path.realpath(root)
        self._inside = os.path.join(self.real, "")
        self._folders: dict[str, str] = {}

    def __call__(self, rel: str) -> Path:
        folder, _, name = rel.rpartition("/")  # as PurePosixPath splits it, without one
        if rel.startswith("/") or ".." in rel.split("/") or not rel.strip() or not name:
            raise BadTarget(f"{rel!r} is not a path relative to the store's root")
        real = self._folders.get(folder)
        if real is None:
            real = self._folders[folder] = self._checked(os.path.join(self.real, folder), rel)
        path = os.path.join(real, name)
        return Path(self._checked(path, rel) if os.path.islink(path) else path)

    def _checked(self, path: str, rel: str) -> str:
        real = os.path.realpath(path)
        if real != self.real and not real.startswith(self._inside):
            raise BadTarget(f"{rel!r} leads outside the store's root")
        return real


def relative_to_root(path: Path, holder: Known) -> str:
    assert holder.root is not None
    return path.resolve().relative_to(holder.root.resolve()).as_posix()


def posix(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./")


