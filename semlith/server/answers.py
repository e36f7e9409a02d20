"""What the MCP tools answer, as text an agent reads: locate lists, excerpts, file reads.

Kept apart from the tool definitions so the formatting is tested on its own. Paths are
relative to their store's root; every path an agent names is checked to resolve inside
a root the daemon serves and to be an indexed file before anything is read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from semlith.errors import SemlithError
from semlith.indexer import content_hash
from semlith.ingest.document import Withheld, document_text
from semlith.ingest.extract import Unreadable
from semlith.ingest.walk import is_opted_in
from semlith.search import Hit
from semlith.server.fleet import Held

_WORD = re.compile(r"\w+")
READ_MAX_LINES = 400


class BadTarget(SemlithError):
    """A path or locator an agent gave cannot be served."""


def _tokens(text: str) -> int:
    return len(text) // 4 + 1  # the usual bytes/4 estimate


def best_line(hit: Hit, query: str) -> tuple[int, str]:
    """The line of a hit sharing most words with the query (its first non-blank line else)."""
    words = {w.lower() for w in _WORD.findall(query)}
    best, best_score = (hit.start_line, ""), -1
    for offset, line in enumerate(hit.text.split("\n")):
        if not line.strip():
            continue
        score = len(words & {w.lower() for w in _WORD.findall(line)})
        if score > best_score:
            best, best_score = (hit.start_line + offset, line.strip()), score
    return best


def locate(hits: Sequence[Hit], query: str, max_tokens: int, multi_store: bool) -> str:
    """Hits grouped by file, one line per hit: `start-end symbol · best line`."""
    if not hits:
        return "No results."
    groups: dict[str, list[Hit]] = {}
    for hit in hits:
        groups.setdefault(f"{hit.store}:{hit.path}" if multi_store else hit.path, []).append(hit)
    out: list[str] = []
    used, shown = 0, 0
    for header, members in groups.items():
        lines = [header]
        for hit in members:
            _, text = best_line(hit, query)
            label = f" {hit.symbol}" if hit.symbol else ""
            lines.append(f"  {hit.start_line}-{hit.end_line}{label} · {text[:160]}")
        cost = _tokens("\n".join(lines))
        if out and used + cost > max_tokens:
            break
        out.extend(lines)
        used += cost
        shown += len(members)
    if shown < len(hits):
        out.append(f"({len(hits) - shown} more hits left out to stay within "
                   f"max_tokens={max_tokens})")
    return "\n".join(out)


def excerpts(hits: Sequence[Hit], max_tokens: int, multi_store: bool) -> str:
    """Each hit's locator and text, until the token budget is spent."""
    if not hits:
        return "No results."
    out: list[str] = []
    used = 0
    for n, hit in enumerate(hits):
        where = f"[{hit.store}] " if multi_store else ""
        block = f"{where}{hit.locator}{' ' + hit.symbol if hit.symbol else ''}\n{hit.text}\n"
        if out and used + _tokens(block) > max_tokens:
            out.append(f"({len(hits) - n} more hits left out to stay within "
                       f"max_tokens={max_tokens})")
            break
        out.append(block)
        used += _tokens(block)
    return "\n".join(out)


@dataclass(frozen=True, slots=True)
class Span:
    path: str
    start: int | None
    end: int | None


_LOCATOR = re.compile(r"^(?P<path>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$")


def parse_locator(target: str) -> Span:
    """`path:start-end`, `path:line` or `path` -> Span (lines 1-based, inclusive)."""
    match = _LOCATOR.match(target.strip())
    if match:
        start = int(match.group("start"))
        end = int(match.group("end") or start)
        if start < 1 or end < start:
            raise BadTarget(f"bad line range in {target!r}: lines start at 1 and end >= start")
        return Span(match.group("path"), start, end)
    return Span(target.strip(), None, None)


def safe_file(held: Held, rel: str) -> Path:
    """The file of an indexed path, resolved inside the store's root, or BadTarget."""
    pure = PurePosixPath(rel.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or not rel.strip():
        raise BadTarget(f"{rel!r} is not a path relative to the store's root")
    if held.store.catalog.file(pure.as_posix()) is None:
        raise BadTarget(f"{rel!r} is not an indexed file of store {held.name!r}; "
                        "semlith_files lists them")
    root = held.store.root.resolve()
    path = (root / pure).resolve()
    if path != root and root not in path.parents:
        raise BadTarget(f"{rel!r} leads outside the store's root")
    return path


def read_lines(held: Held, span: Span) -> str:
    """Exact lines of an indexed file as it is on disk, marked when it changed since."""
    path = safe_file(held, span.path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BadTarget(f"{span.path!r} cannot be read now ({exc.strerror}); "
                        "it may have been deleted") from None
    rel = PurePosixPath(span.path).as_posix()
    record = held.store.catalog.file(rel)
    changed = record is not None and record.hash != content_hash(data)
    store = held.store
    try:  # what was indexed, as it was indexed: secrets withheld or redacted
        text = document_text(rel, data, opted_in=is_opted_in(store.root, rel,
                                                             exclude=[store.folder]))
    except Withheld as exc:
        raise BadTarget(f"{span.path!r} is withheld as a secret ({exc}); semlith does not "
                        "serve it") from None
    except Unreadable as exc:
        raise BadTarget(f"{span.path!r} cannot be read as text now ({exc})") from None
    lines = text.split("\n")
    start = span.start or 1
    end = min(span.end or len(lines), len(lines), start + READ_MAX_LINES - 1)
    if start > len(lines):
        raise BadTarget(f"{span.path!r} has {len(lines)} lines; line {start} does not exist")
    note = " (the file changed since it was indexed)" if changed else ""
    more = f"\n({(span.end or len(lines)) - end} more lines not shown)" \
        if (span.end or len(lines)) > end else ""
    body = "\n".join(f"{n:>5}  {lines[n - 1]}" for n in range(start, end + 1))
    return f"{span.path}:{start}-{end}{note}\n{body}{more}"
