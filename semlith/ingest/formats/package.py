"""Zip containers (Office Open XML, OpenDocument, EPUB) opened with every cap checked.

Before `zipfile` parses the directory, the end-of-directory record gives the number of
entries (MAX_ZIP_ENTRIES). Before a member is read, the directory gives its expanded
size and ratio (MAX_MEMBER_BYTES, MAX_RATIO); while it is read, the bytes actually
expanded are counted against the member and the whole document (MAX_EXPANDED_BYTES),
and `zipfile` itself never returns more than the declared size. Only stored and
deflated members are read: bzip2 and LZMA expand a whole block in one call, unbounded.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from typing import IO

from semlith.ingest.formats.limits import (
    MAX_EXPANDED_BYTES,
    MAX_MEMBER_BYTES,
    MAX_RATIO,
    MAX_ZIP_ENTRIES,
    RATIO_FLOOR_BYTES,
    Unreadable,
)
from semlith.ingest.formats.xmlstream import XmlLimit

CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # OLE2 compound file
_ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")
_EOCD = b"PK\x05\x06"
_EOCD_SEARCH = 22 + 0xFFFF  # the record, plus the longest comment it may carry
# NotImplementedError: zipfile's answer to a "needs version" it does not know (fuzzing).
_CORRUPT = (zipfile.BadZipFile, zlib.error, EOFError, OSError, struct.error, ValueError,
            NotImplementedError)
_READABLE_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


class Package:
    """One zip container; `open` and `read` give members within the caps."""

    def __init__(self, data: bytes, kind: str) -> None:
        """`kind` names the format in messages ("Word document")."""
        self.kind = kind
        if data.startswith(CFB_MAGIC):
            raise Unreadable(_compound_file_reason(data, kind))
        entries = _declared_entries(data)
        if entries > MAX_ZIP_ENTRIES:
            raise Unreadable(f"{kind}: {entries:,} zip entries (more than "
                             f"{MAX_ZIP_ENTRIES:,})")
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
        except _CORRUPT as exc:
            raise Unreadable(f"{kind}: corrupt or truncated zip ({exc})") from None
        self._names = {info.filename: info for info in self._zip.infolist()}
        self.expanded = 0  # bytes read so far, all members

    def has(self, name: str) -> bool:
        return name in self._names

    def open(self, name: str) -> Member:
        """A member as a stream that raises XmlLimit at the byte caps.

        Raises:
            Unreadable: no such member, an encrypted or bzip2/LZMA member, a zip bomb.
        """
        info = self._names.get(name)
        if info is None:
            raise Unreadable(f"{self.kind}: {name!r} is missing")
        if info.flag_bits & 0x1:
            raise Unreadable(f"{self.kind}: {name!r} is encrypted (password-protected)")
        if info.compress_type not in _READABLE_METHODS:
            raise Unreadable(f"{self.kind}: {name!r} uses compression method "
                             f"{info.compress_type} (only stored and deflated are read)")
        if info.file_size > RATIO_FLOOR_BYTES and \
                info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise Unreadable(f"{self.kind}: zip bomb: {name!r} would expand "
                             f"{info.file_size / max(info.compress_size, 1):,.0f}x "
                             f"({info.compress_size:,} -> {info.file_size:,} bytes; "
                             f"the cap is {MAX_RATIO}x)")
        try:
            return Member(self._zip.open(info), self, name)
        except _CORRUPT as exc:
            raise Unreadable(f"{self.kind}: corrupt zip member {name!r} ({exc})") from None

    def read(self, name: str) -> bytes:
        """A whole member (for the small ones: relationships, manifests, styles)."""
        with self.open(name) as stream:
            return stream.read()


class Member:
    """Reads a member, counting expanded bytes against the member and document caps."""

    def __init__(self, raw: IO[bytes], package: Package, name: str) -> None:
        self._raw = raw
        self._package = package
        self._name = name
        self._read = 0

    def __enter__(self) -> Member:
        return self

    def __exit__(self, *_: object) -> None:
        self._raw.close()

    def read(self, size: int = -1) -> bytes:
        want = MAX_MEMBER_BYTES + 1 if size < 0 else size
        try:
            data = self._raw.read(want)
        except _CORRUPT as exc:
            raise Unreadable(f"{self._package.kind}: corrupt zip member {self._name!r} "
                             f"({exc})") from None
        self._read += len(data)
        self._package.expanded += len(data)
        if self._read > MAX_MEMBER_BYTES:
            raise XmlLimit(f"{self._name} expands past {_size(MAX_MEMBER_BYTES)}")
        if self._package.expanded > MAX_EXPANDED_BYTES:
            raise XmlLimit(f"the document expands past {_size(MAX_EXPANDED_BYTES)}")
        return data


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n:,} bytes"


def _declared_entries(data: bytes) -> int:
    """Entries the end-of-directory record declares (0 when there is none: zipfile will
    say the file is not a zip). A Zip64 count (0xFFFF) is bounded by the directory size."""
    at = data.rfind(_EOCD, max(0, len(data) - _EOCD_SEARCH))
    if at < 0 or at + 22 > len(data):
        return 0
    entries, directory_size = struct.unpack_from("<HI", data, at + 10)
    return int(entries) if entries != 0xFFFF else directory_size // 46  # 46: smallest entry


def _compound_file_reason(data: bytes, kind: str) -> str:
    """Why an OLE2 compound file in place of a zip cannot be read."""
    if _ENCRYPTED_PACKAGE in data:  # a directory entry name; ~10 ms to scan 64 MB
        return f"encrypted {kind} (password-protected)"
    return f"{kind}: an OLE2 compound file, not a zip (a legacy .doc/.xls/.ppt renamed?)"
