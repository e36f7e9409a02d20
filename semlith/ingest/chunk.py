"""Text -> chunks whose `start_line`/`end_line` point at the file on disk.

Code is cut at its definitions (tree-sitter, see `definitions.py`): a chunk starts at a
definition (with the comments and decorators above it), small neighbours are packed
together up to the budget, and a long definition is split at its inner definitions, else
at the statements of its body — never inside a line. Markdown is cut at its headings the
same way, and so are documents (Word, sheets, slides, mail...), whose readers render
their structure as Markdown headings. Everything else, and any file whose parse fails or
whose parse or plan runs out of time (issue #26), gets line windows with two lines of
overlap. Each chunk carries the path of what
encloses it (`class Router > method add_route`, or `Deployment > Backups`), which is
prepended only when embedding.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from semlith.base.languages import Language
from semlith.ingest.definitions import CodeFile, Definition, read_code
from semlith.ingest.plan import (
    MAX_CHUNKS_PER_FILE,
    Chunk,
    PlanOverdue,
    hard_split,
    headings,
    nest,
    plan,
)
from semlith.ingest.preamble import mark_preambles

# Chunk, MAX_CHUNKS_PER_FILE and hard_split live with the planner that makes them; this
# is where the rest of semlith takes them from.
__all__ = ["MAX_CHARS", "MAX_CHUNKS_PER_FILE", "WHOLE_CHARS", "Chunk", "Chunked",
           "Symbol", "chunk_file", "chunk_text", "hard_split", "line_windows",
           "strategy_of", "text_windows"]

MAX_CHARS = 800
# A definition that is not class-like stays one chunk up to this size (issue #21: a
# 42-line function was three chunks). Measured at 1,600 and 2,400 characters, the tune
# half of the benchmark roots fell 0.003 and 0.005 (docs/performance.md): the default
# model reads 256 tokens (~900 characters) of a chunk and bm25 ranks without length
# normalisation, so a long chunk loses its tail to the one and gains on the other. So
# by default a definition over the budget is split; the planner keeps the knob.
WHOLE_CHARS = MAX_CHARS
OVERLAP_LINES = 2


@dataclass(frozen=True, slots=True)
class Symbol:
    name: str
    qualname: str
    kind: str
    start_line: int
    end_line: int
    signature: str
    chunk: int  # index of the chunk holding the definition's first line


@dataclass(frozen=True, slots=True)
class Chunked:
    chunks: list[Chunk]
    symbols: list[Symbol]
    strategy: str  # "definitions", "headings", "lines", or "lines (why)" after a failure


# -- line windows ----------------------------------------------------------------------

def line_windows(text: str, *, first_line: int = 1, max_chars: int = MAX_CHARS,
                 overlap: int = OVERLAP_LINES) -> list[Chunk]:
    """Line-aligned windows of at most `max_chars` characters, `overlap` lines shared."""
    lines = text.split("\n")
    chunks: list[Chunk] = []
    start = 0
    while start < len(lines) and len(chunks) < MAX_CHUNKS_PER_FILE:
        if len(lines[start]) > max_chars:
            chunks.extend(hard_split(lines[start], first_line + start, max_chars))
            start += 1
            continue
        end, size = start, 0
        while end < len(lines) and len(lines[end]) <= max_chars and \
                size + len(lines[end]) + 1 <= max_chars:
            size += len(lines[end]) + 1
            end += 1
        if end == start:  # a line of exactly max_chars (its newline would not fit): alone,
            end += 1  # or the window never moved and the run hung (sympy's rubi rules)
        body = "\n".join(lines[start:end])
        if body.strip():
            chunks.append(Chunk(first_line + start, first_line + end - 1, body))
        if end >= len(lines):
            break
        start = max(start + 1, end - overlap) if end - start > overlap else end
    return chunks[:MAX_CHUNKS_PER_FILE]


# -- entry point -------------------------------------------------------------------------

def chunk_file(text: str, language: Language | None = None, *,
               max_chars: int = MAX_CHARS, whole_chars: int = WHOLE_CHARS,
               code: CodeFile | None = None) -> Chunked:
    """Chunks and symbols of a file's text; the strategy depends on its language.

    `max_chars` bounds line windows, the parts of a split definition and a pack of small
    neighbours; a function-like definition up to `whole_chars` is one chunk. `code` is
    the text already read by `read_code` (the indexer parses a file once for its chunks
    and its edges); without it, code is read here.
    """
    lines = text.split("\n")
    if language is not None and language.headings:
        sections = headings(lines)
        if sections:
            try:
                return Chunked(plan(lines, nest(sections), max_chars), [], "headings")
            except PlanOverdue as exc:
                return Chunked(line_windows(text, max_chars=max_chars), [], f"lines ({exc})")
    if language is None or language.grammar is None:
        return Chunked(line_windows(text, max_chars=max_chars), [], "lines")
    code = code or read_code(text, language)
    if code.failed:
        return Chunked(line_windows(text, max_chars=max_chars), [], f"lines ({code.failed})")
    roots = nest(code.definitions)
    try:
        chunks = plan(lines, roots, max_chars, whole_chars)
    except RecursionError:  # definitions nested thousands deep (generated code)
        return Chunked(line_windows(text, max_chars=max_chars), [], "lines (nested too deep)")
    except PlanOverdue as exc:
        return Chunked(line_windows(text, max_chars=max_chars), [], f"lines ({exc})")
    return Chunked(mark_preambles(chunks), _symbols(roots, chunks), "definitions")


def text_windows(text: str, reason: str, *, max_chars: int = MAX_CHARS) -> Chunked:
    """A code file cut into line windows instead of at its definitions, and why."""
    return Chunked(line_windows(text, max_chars=max_chars), [], f"lines ({reason})")


def strategy_of(language: Language) -> str:
    """How files of `language` are cut when nothing fails: "definitions", "headings" or
    "lines" (what `semlith languages` and docs/languages.md show)."""
    from semlith.ingest.definitions import has_definitions

    if has_definitions(language):
        return "definitions"
    return "headings" if language.headings else "lines"


def chunk_text(text: str, language: Language | None = None, *,
               max_chars: int = MAX_CHARS) -> list[Chunk]:
    return chunk_file(text, language, max_chars=max_chars).chunks


def _symbols(roots: list[Definition], chunks: list[Chunk]) -> list[Symbol]:
    """Every definition, with the index of the last chunk holding its first line (or -1).

    Chunks are planned in order and do not overlap, so that chunk is the last one starting
    at or before the line: found by bisection, not by scanning (issue #26: 40,000 symbols
    over 2,000 chunks took 2.2 s).
    """
    starts = [c.start_line for c in chunks]
    out: list[Symbol] = []

    def visit(d: Definition, prefix: str) -> None:
        qualname = f"{prefix}.{d.qualified_name}" if prefix else d.qualified_name
        last = bisect.bisect_right(starts, d.def_line) - 1
        holder = last if last >= 0 and d.def_line <= chunks[last].end_line else -1
        out.append(Symbol(d.name, qualname, d.kind, d.start_line, d.end_line, d.signature,
                          holder))
        for child in d.children:
            visit(child, qualname)

    for root in roots:
        visit(root, "")
    return out
