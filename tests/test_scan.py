"""The scan's decision (semlith/index/scan.py): one file's state in, one action out, no I/O."""

from __future__ import annotations

import pytest

from semlith.index.scan import Action, FileState, decide
from semlith.store.rows import FileRecord, SkipRecord

CUT, RULES = "cut-today", "rules-today"
STAT = (120, 1_000)


def row(hash: str = "h1", size: int = 120, mtime_ns: int = 1_000, chunking: str = CUT,
        rules: str = RULES, path: str = "a.py") -> FileRecord:
    return FileRecord(7, path, hash, size, mtime_ns, 0.0, ".py", "python", chunking, 0, rules)


def state(rel: str = "a.py", stat: tuple[int, int] | None = STAT, **facts: object) -> FileState:
    return FileState(rel, stat, chunking=CUT, rules=RULES).knowing(**facts)


CASES = [
    # (why, state, action)
    ("indexed, same size and mtime: not even read", state(record=row()), Action.REUSE),
    ("touched, same bytes: its new mtime is recorded",
     state(record=row(mtime_ns=5), digest="h1"), Action.REUSE),
    ("size or mtime changed: hash it first", state(record=row(size=1)), Action.READ),
    ("new to the store: hash it first", state(), Action.READ),
    ("pending (no hash: a run stopped before its vectors): read again",
     state(record=row(hash="")), Action.READ),
    ("changed bytes: copy an identical file's rows, or embed",
     state(record=row(mtime_ns=5), digest="h2"), Action.COPY),
    ("new bytes", state(digest="h2"), Action.COPY),
    ("its language is cut differently now: hash, then cut anew",
     state(record=row(chunking="old")), Action.READ),
    ("cut differently now, same bytes", state(record=row(chunking="old"), digest="h1"),
     Action.EMBED),
    ("read under older secret rules: ask whether today's change it",
     state(record=row(rules="old")), Action.RECHECK),
    ("older rules leave it as it was", state(record=row(rules="old"), withholds=False),
     Action.REUSE),
    ("today's rules withhold or redact it: cut anew",
     state(record=row(rules="old"), withholds=True, digest="h1"), Action.EMBED),
    ("today's rules withhold it, not read yet", state(record=row(rules="old"), withholds=True),
     Action.READ),
    ("cut differently now: no need to ask the rules",
     state(record=row(rules="old", chunking="old")), Action.READ),
    ("binary last time and untouched", state(skip=SkipRecord("a.py", "binary", "", *STAT)),
     Action.SKIP),
    ("skipped last time, touched since", state(skip=SkipRecord("a.py", "binary", "", 1, 2)),
     Action.READ),
    ("a document skipped as binary by a semlith without its reader",
     state("d.docx", skip=SkipRecord("d.docx", "binary", "", *STAT)), Action.READ),
    ("an image skipped for a reason other than unreadable is judged again",
     state("p.png", skip=SkipRecord("p.png", "binary", "", *STAT)), Action.READ),
    ("an unreadable image stays skipped",
     state("p.png", skip=SkipRecord("p.png", "unreadable", "", *STAT)), Action.SKIP),
    ("a secret last time", state(skip=SkipRecord("a.py", "secret", "", *STAT)), Action.SKIP),
    ("a secret since named by .semlithinclude",
     state(skip=SkipRecord("a.py", "secret", "", *STAT), opted_in=True), Action.READ),
    ("new path, the bytes of a vanished file: move its rows",
     state("b.py", digest="h1", moved_from=row()), Action.RENAME),
    ("a vanished twin read under other secret rules: read the file anew",
     state("b.py", digest="h1", moved_from=row(rules="old")), Action.COPY),
    ("an indexed path is never a rename target",
     state(record=row(hash="h0", mtime_ns=5), digest="h1", moved_from=row(path="b.py")),
     Action.COPY),
    ("indexed and no longer there", state(stat=None, record=row()), Action.REMOVE),
]


@pytest.mark.parametrize(("why", "given", "action"), CASES, ids=[c[0] for c in CASES])
def test_decide(why: str, given: FileState, action: Action) -> None:
    assert decide(given) is action, why


def test_every_action_is_decided_somewhere() -> None:
    assert {action for _, _, action in CASES} == set(Action)


def test_a_fact_asked_for_settles_the_file() -> None:
    """The indexer's loop: each answer adds the fact asked for, and it ends."""
    facts = {Action.RECHECK: {"withholds": False}, Action.READ: {"digest": "h1"}}
    current = state(record=row(rules="old", mtime_ns=5))
    asked = []
    while (action := decide(current)) in facts:
        asked.append(action)
        current = current.knowing(**facts[action])
    assert (asked, action) == ([Action.RECHECK, Action.READ], Action.REUSE)
