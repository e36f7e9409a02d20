"""Whole definitions as answers (issue #46): a ranked chunk that is a fragment of a larger
definition is shown as the whole definition when it fits, named by its qualified name.

Code is chunked at its definitions, and a long one is split (`compile_path` in three
chunks, `Router.app` in four): the ranking finds a fragment, and an agent then reads
the rest. At answer time, after the ranking chose its order, each hit's definition is
found (the one its chunk is labelled by, else the innermost that holds it) and:

- a definition no larger than the chunk: the chunk, named by its qualified name
  (`Router.app`, not `app`);
- a larger one of at most WHOLE_LINES lines and WHOLE_CHARS characters: the hit becomes
  its lines (with the chunk's, when the chunk holds lines around it), rebuilt from the
  store's chunks as they were indexed (redactions stay; the file is not read), and
  remembers the chunk's lines (`Hit.found`) so that a budget can fall back to them
  (server/answers.py);
- a larger one: the chunk, with the definition's lines (`Hit.definition`) so that it
  reads as a part: `Router (part of 566-747)`.

Two hits become one: a hit whose chunk lies in the lines an earlier hit shows as a whole
definition is dropped and the list closes up with the next candidate; a hit whose whole
definition would take in lines an earlier hit shows keeps its chunk. Each hit depends
on the hits before it only, so the top k stays a prefix of the top k + n
(ranking/pipeline.py).

The limit, measured over the 28 development stores (docs/ranking.md): of the 9,122
functions and methods that span more than one chunk, 56 % fit in 40 lines and 2,000
characters, 78 % in 60 and 3,000, 86 % in 80 and 4,000, 90 % in 100 and 4,000; of the
3,236 classes and modules, 46 % fit in 80 and 4,000. 4,000 characters is ~1,000 tokens:
half of `semlith_search`'s default budget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from semlith.store.corpus import Corpus
from semlith.types import ChunkRecord, Definition

WHOLE_LINES = 80
WHOLE_CHARS = 4_000

Span = tuple[str, int, int]  # (path, first line, last line)


@dataclass(frozen=True, slots=True)
class Shown:
    """A ranked chunk as its hit shows it."""

    id: int
    score: float
    record: ChunkRecord  # the chunk the ranking found
    start_line: int
    end_line: int
    text: str
    symbol: str  # the definition's qualified name, or the chunk's label
    name: str  # its own name, as a line of the text spells it
    kind: str
    definition: tuple[int, int] = (0, 0)  # the definition's lines, when larger than the chunk
    found: tuple[int, int] = (0, 0)  # the chunk's lines, when the hit shows more (widened)


def answers(corpus: Corpus, ranked: Sequence[tuple[int, float]], k: int,
            labels: Mapping[int, tuple[str, str]], *, widen: bool = True) -> list[Shown]:
    """The first `k` hits of `ranked` (chunk id, score) as they are shown, fragments of
    one shown definition merged into it (the module docstring). `labels`: a chunk found
    by name -> that definition's (name, kind). Without `widen` (SEMLITH_RANKING=whole=0)
    every hit is its chunk. Reads the candidates' records, their definitions and the
    widened lines in one query each, a round for the top `k` and another only when a
    merge left room."""
    kept: list[Shown] = []
    at = 0
    while len(kept) < k and at < len(ranked):
        batch = ranked[at:at + k - len(kept)]
        at += len(batch)
        records = corpus.records([cid for cid, _ in batch])
        batch = [(cid, score) for cid, score in batch if cid in records]
        around = corpus.definitions_around([cid for cid, _ in batch])
        chosen = {cid: _definition(records[cid], labels.get(cid), around.get(cid, []))
                  for cid, _ in batch}
        texts = _texts(corpus, [_span(records[cid], d) for cid, d in chosen.items()
                                if widen and d is not None and _widens(records[cid], d)])
        for cid, score in batch:
            shown = _shown(cid, score, records[cid], labels.get(cid), chosen[cid], texts,
                           kept)
            if shown is not None:
                kept.append(shown)
    return kept[:k]


def _definition(rec: ChunkRecord, label: tuple[str, str] | None,
                around: Sequence[Definition]) -> Definition | None:
    """The definition a chunk is (part of): among those overlapping it named as it is
    labelled (or as the query found it), the one most of its lines are in (the innermost
    of as many); else the innermost that holds all of its lines."""
    name = label[0] if label else rec.symbol
    if name:
        named = [d for d in around if d.name == name]
        if named:
            return max(named, key=lambda d: (_overlap(d, rec), -_size(d)))
    holding = [d for d in around if d.start_line <= rec.start_line
               and rec.end_line <= d.end_line]
    return min(holding, key=_size, default=None)


def _overlap(d: Definition, rec: ChunkRecord) -> int:
    return max(0, min(rec.end_line, d.end_line) - max(rec.start_line, d.start_line) + 1)


def _size(d: Definition) -> int:
    return d.end_line - d.start_line


def _larger(rec: ChunkRecord, d: Definition | None) -> bool:
    return d is not None and (d.start_line < rec.start_line or d.end_line > rec.end_line)


def _span(rec: ChunkRecord, d: Definition) -> Span:
    """The lines a widened hit shows: the definition's and the chunk's."""
    return rec.path, min(rec.start_line, d.start_line), max(rec.end_line, d.end_line)


def _widens(rec: ChunkRecord, d: Definition) -> bool:
    """Whether a chunk's definition is larger and short enough to be shown whole."""
    if not _larger(rec, d):
        return False
    _, first, last = _span(rec, d)
    return last - first + 1 <= WHOLE_LINES


def _texts(corpus: Corpus, spans: list[Span]) -> dict[Span, str]:
    """Each span's lines as indexed, from the chunks that cover it (one query); a span
    the chunks do not cover to both ends, or too long, has none."""
    spans = list(dict.fromkeys(spans))
    if not spans:
        return {}
    chunks = corpus.span_records(spans)
    out = {}
    for span in spans:
        path, first, last = span
        text = rebuilt([c for c in chunks if c.path == path and c.start_line <= last
                        and c.end_line >= first], first, last)
        if text is not None and len(text) <= WHOLE_CHARS:
            out[span] = text
    return out


def rebuilt(chunks: Sequence[ChunkRecord], first: int, last: int) -> str | None:
    """Lines `first` to `last` from `chunks` (in line order): a line no chunk holds is
    blank (the chunker leaves out only blank lines between chunks), a line cut in pieces
    (one too long for a chunk) is joined again. None when the chunks do not reach both
    ends, or a chunk's text is not its lines (extracted document text)."""
    lines: dict[int, str] = {}
    pieces: set[int] = set()  # the lines of one-line chunks met so far
    for c in chunks:
        parts = c.text.split("\n")
        if len(parts) != c.end_line - c.start_line + 1:
            return None
        if c.start_line == c.end_line and c.start_line in pieces:
            lines[c.start_line] += c.text  # the next piece of a long line (hard_split)
            continue
        if c.start_line == c.end_line:
            pieces.add(c.start_line)
        for n, line in enumerate(parts, start=c.start_line):
            lines.setdefault(n, line)
    if first not in lines or last not in lines:
        return None
    return "\n".join(lines.get(n, "") for n in range(first, last + 1))


def _shown(cid: int, score: float, rec: ChunkRecord, label: tuple[str, str] | None,
           d: Definition | None, texts: Mapping[Span, str], kept: Sequence[Shown]
           ) -> Shown | None:
    """How one ranked chunk is shown after the `kept` hits, or None when it lies in a
    definition one of them shows whole."""
    same = [s for s in kept if s.record.path == rec.path]
    if any(s.found[0] and s.start_line <= rec.start_line and rec.end_line <= s.end_line
           for s in same):
        return None  # in a definition shown whole already
    name, kind = label if label else (rec.symbol, rec.kind)
    if d is None:
        return Shown(cid, score, rec, rec.start_line, rec.end_line, rec.text, name, name,
                     kind)
    symbol, name = d.qualname or d.name, d.name
    if not _larger(rec, d):
        return Shown(cid, score, rec, rec.start_line, rec.end_line, rec.text, symbol, name,
                     kind)
    span = _span(rec, d)
    text = texts.get(span)
    _, first, last = span
    if text is not None and not any(s.start_line <= last and first <= s.end_line
                                    for s in same):
        return Shown(cid, score, rec, first, last, text, symbol, name, kind,
                     (d.start_line, d.end_line), (rec.start_line, rec.end_line))
    return Shown(cid, score, rec, rec.start_line, rec.end_line, rec.text, symbol, name,
                 kind, definition=(d.start_line, d.end_line))
