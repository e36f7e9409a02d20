"""What an index run does with one file: a decision from the file's state, with no I/O.

The indexer (semlith/index/indexer.py) gathers the facts about each file, cheapest first: its
catalog row, its size and mtime from the walk, its skip record from the last run. From
those alone `decide` settles most files (`REUSE`: unchanged, not even read). When it
needs a fact that costs a read it says which one (`RECHECK`: do today's secret rules
change this indexed file; `READ`: its content hash), and the indexer asks again with
that fact added. After the walk, a changed file is decided once more with its rename
candidate (an indexed file that vanished and had the same bytes), and a vanished file
is `REMOVE`d.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from semlith.ingest.formats import is_document
from semlith.ingest.images import is_image
from semlith.ingest.walk import SkipReason
from semlith.store.rows import FileRecord, SkipRecord


class Action(StrEnum):
    """What to do with a file. RECHECK and READ ask for a fact; the rest are final."""

    REUSE = "reuse"  # unchanged: keep its rows (record its new mtime if it was touched)
    SKIP = "skip"  # skipped last time and untouched since: keep its skip record
    RECHECK = "recheck"  # the secret rules changed since it was read: do they change it?
    READ = "read"  # its size or mtime changed: hash its bytes
    RENAME = "rename"  # new path, the bytes of a vanished indexed file: move its rows
    COPY = "copy"  # new bytes: take an identical indexed file's rows, or else embed
    EMBED = "embed"  # the same bytes to cut anew (new chunking, or new secret rules)
    REMOVE = "remove"  # indexed, and no longer there


@dataclass(frozen=True, slots=True)
class FileState:
    """The facts about one file that `decide` reads."""

    rel: str
    stat: tuple[int, int] | None  # (size, mtime_ns) as walked; None: not there any more
    record: FileRecord | None = None  # its catalog row, if it was indexed
    chunking: str = ""  # how its language is cut today (definitions.chunking_fingerprint)
    rules: str = ""  # today's secret rules (secrets.rules_fingerprint)
    skip: SkipRecord | None = None  # why the last run passed over it, if it did
    opted_in: bool = False  # named by a `.semlithinclude` (it may hold a secret)
    withholds: bool | None = None  # today's rules withhold or redact it (None: not asked)
    digest: str | None = None  # its content hash (None: not read)
    moved_from: FileRecord | None = None  # a vanished indexed file with the same hash

    def knowing(self, **facts: object) -> FileState:
        """The same state with more facts."""
        return replace(self, **facts)  # type: ignore[arg-type]


def decide(state: FileState) -> Action:
    """What the run does with `state`'s file (see Action; RECHECK and READ ask for facts)."""
    record = state.record
    if state.stat is None:
        return Action.REMOVE
    indexed = record is not None and bool(record.hash)  # every chunk has its vector
    # A file whose language is cut differently now (a new or better grammar query, a new
    # planner) is cut again, unchanged or not; so is one the secret rules change, once
    # after they change.
    recut = record is not None and record.chunking != state.chunking
    if record is not None and indexed and not recut and record.rules != state.rules:
        if state.withholds is None:
            return Action.RECHECK
        recut = state.withholds
    if record is not None and indexed and (record.size, record.mtime_ns) == state.stat \
            and not recut:
        return Action.REUSE
    if state.skip is not None and _skipped_again(state, state.skip):
        return Action.SKIP
    if state.digest is None:
        return Action.READ
    if record is not None and record.hash == state.digest:
        return Action.EMBED if recut else Action.REUSE
    moved = state.moved_from
    if record is None and moved is not None and moved.rules == state.rules:
        return Action.RENAME  # (a twin read under other secret rules is read anew)
    return Action.COPY


def _skipped_again(state: FileState, skip: SkipRecord) -> bool:
    """Binary, unreadable, secret or generated last time, and untouched. A document skipped
    as binary was skipped by a semlith without its reader, a secret or generated file
    before a `.semlithignore` negation named it, and an image is judged again unless it
    could not be read: each is read now."""
    return (skip.size, skip.mtime_ns) == state.stat and \
        not (skip.reason == "binary" and is_document(state.rel)) and \
        not (is_image(state.rel) and skip.reason != "unreadable") and \
        not (skip.reason in (SkipReason.SECRET, SkipReason.GENERATED) and state.opted_in)
