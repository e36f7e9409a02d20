"""What a resolution says: the edge's status and the definition(s) it reaches."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from semlith.store.edges import GraphDef


class Status(StrEnum):
    EXTRACTED = "extracted"
    RESOLVED = "resolved"
    AMBIGUOUS = "ambiguous"


@dataclass(frozen=True, slots=True)
class Resolution:
    status: Status
    targets: tuple[GraphDef, ...]  # one when settled; the candidates when ambiguous

    @property
    def settled(self) -> bool:
        return self.status is not Status.AMBIGUOUS
