"""EPUB: the book's chapters in reading (spine) order, with their headings.

The container names the package document (OPF); its manifest and spine give the
chapters, each XHTML rendered by `html.py`. A book whose chapters are listed in
META-INF/encryption.xml is DRM-protected and skipped; fonts listed there (font
obfuscation, which every store applies) do not matter.
"""

from __future__ import annotations

import posixpath
from urllib.parse import unquote

from semlith.ingest.formats.html import html_blocks
from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.formats.ooxml import elements
from semlith.ingest.formats.package import Package
from semlith.ingest.formats.text import Text
from semlith.ingest.formats.xmlstream import Budget, parse_xml, tag

CONTAINER = tag("urn:oasis:names:tc:opendocument:xmlns:container")
OPF = tag("http://www.idpf.org/2007/opf")
DC_TITLE = "http://purl.org/dc/elements/1.1/ title"
XMLENC = tag("http://www.w3.org/2001/04/xmlenc#")
# Tags, made once: a call per comparison cost 6% of a sheet's time (profiled).
_CONTAINER_ROOTFILE = CONTAINER("rootfile")
_OPF_ITEM = OPF("item")
_OPF_ITEMREF = OPF("itemref")
_XMLENC_CIPHER_REFERENCE = XMLENC("CipherReference")
_CHAPTER_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/xml"})


def read_epub(data: bytes, out: Text, depth: int) -> None:
    package = Package(data, "EPUB book")
    budget = Budget()
    if not package.has("META-INF/container.xml"):
        raise Unreadable("EPUB book: no META-INF/container.xml (not an EPUB?)")
    roots = elements(package, "META-INF/container.xml", budget, _CONTAINER_ROOTFILE)
    opf = next((a.get("full-path", "") for _, a in roots if package.has(a.get("full-path", ""))),
               "")
    if not opf:
        raise Unreadable("EPUB book: the container names no package document")
    book = _Opf()
    with package.open(opf) as stream:
        parse_xml(stream, book, budget, name=opf)
    folder = posixpath.dirname(opf)
    chapters = [posixpath.normpath(posixpath.join(folder, unquote(book.items[i][0])))
                for i in book.spine if i in book.items and book.items[i][1] in _CHAPTER_TYPES]
    if set(chapters) & _encrypted(package, budget):
        raise Unreadable("EPUB book: DRM-encrypted chapters")
    if book.title.strip():
        out.heading(1, book.title)
    for chapter in chapters:
        if package.has(chapter):
            html_blocks(package.read(chapter).decode("utf-8", errors="replace"), out, budget)


class _Opf:
    """The package document: title, manifest (id -> href, media type) and spine."""

    def __init__(self) -> None:
        self.title = ""
        self.items: dict[str, tuple[str, str]] = {}
        self.spine: list[str] = []
        self.in_title = False

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name == _OPF_ITEM:
            self.items[attrs.get("id", "")] = (attrs.get("href", ""),
                                               attrs.get("media-type", ""))
        elif name == _OPF_ITEMREF and attrs.get("linear", "yes") != "no":
            self.spine.append(attrs.get("idref", ""))
        elif name == DC_TITLE and not self.title:
            self.in_title = True

    def end(self, name: str) -> None:
        if name == DC_TITLE:
            self.in_title = False

    def text(self, data: str) -> None:
        if self.in_title:
            self.title += data


def _encrypted(package: Package, budget: Budget) -> set[str]:
    """Parts META-INF/encryption.xml lists (their URIs are relative to the zip's root)."""
    if not package.has("META-INF/encryption.xml"):
        return set()
    return {posixpath.normpath(unquote(a.get("URI", ""))) for _, a in
            elements(package, "META-INF/encryption.xml", budget, _XMLENC_CIPHER_REFERENCE)}
