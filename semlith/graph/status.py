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
    # settled: what the call runs, one definition (or each a name is bound to on some
    # path: `h = md5_utf8` on one branch, `h = sha_utf8` on another); ambiguous: the
    # candidates, one of which it runs
    targets: tuple[GraphDef, ...]

    @property
    def settled(self) -> bool:
        return self.status is not Status.AMBIGUOUS
