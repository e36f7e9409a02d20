"""What Word, Excel and PowerPoint files share: package relationships and small parts.

An Office Open XML file is a zip of XML parts tied together by relationship parts
(`_rels/.rels`, `word/_rels/document.xml.rels`); a reader finds its main part through
them instead of assuming a name, as Office itself does.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from semlith.ingest.formats.limits import Unreadable
from semlith.ingest.formats.package import Package
from semlith.ingest.formats.xmlstream import Budget, parse_xml, tag

_RELS = tag("http://schemas.openxmlformats.org/package/2006/relationships")
# Tags, made once: a call per comparison cost 6% of a sheet's time (profiled).
_RELS_RELATIONSHIP = _RELS("Relationship")
OFFICE_DOCUMENT = "/officeDocument"  # relationship types end with these
R_ID = "http://schemas.openxmlformats.org/officeDocument/2006/relationships id"


@dataclass(frozen=True, slots=True)
class Relation:
    id: str
    type: str  # the full type URI
    target: str  # the part's name inside the zip, resolved


class Elements:
    """A handler that keeps the attributes of the elements named in `wanted`."""

    def __init__(self, *wanted: str) -> None:
        self.wanted = frozenset(wanted)
        self.found: list[tuple[str, dict[str, str]]] = []

    def start(self, name: str, attrs: dict[str, str]) -> None:
        if name in self.wanted:
            self.found.append((name, attrs))

    def end(self, name: str) -> None:
        pass

    def text(self, data: str) -> None:
        pass


def elements(package: Package, part: str, budget: Budget,
             *wanted: str) -> list[tuple[str, dict[str, str]]]:
    """The `wanted` elements of a small part, in document order, with their attributes."""
    handler = Elements(*wanted)
    with package.open(part) as stream:
        parse_xml(stream, handler, budget, name=part)
    return handler.found


def relations(package: Package, part: str, budget: Budget) -> list[Relation]:
    """The relationships of `part` ("" for the package's own); none when it has none."""
    folder, base = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", f"{base}.rels")
    if not package.has(rels):
        return []
    found = []
    for _, attrs in elements(package, rels, budget, _RELS_RELATIONSHIP):
        if attrs.get("TargetMode") == "External":
            continue  # a hyperlink or a linked file: never followed
        target = attrs.get("Target", "")
        resolved = target.lstrip("/") if target.startswith("/") else \
            posixpath.normpath(posixpath.join(folder, target))
        found.append(Relation(attrs.get("Id", ""), attrs.get("Type", ""), resolved))
    return found


def main_part(package: Package, budget: Budget) -> str:
    """The part the package's officeDocument relationship names."""
    for relation in relations(package, "", budget):
        if relation.type.endswith(OFFICE_DOCUMENT) and package.has(relation.target):
            return relation.target
    raise Unreadable(f"{package.kind}: no main document part (not an Office file?)")
