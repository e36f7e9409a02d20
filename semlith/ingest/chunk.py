"""Text -> chunks whose `start_line`/`end_line` point at the file on disk.

This is the line-window fallback every text gets today: line-aligned windows up to
`max_chars` with `overlap` lines repeated between neighbours; a line longer than a
window is hard-split into pieces that all carry its line number. Definition-aware
chunking (tree-sitter) plugs in through `chunk_text`, which picks a strategy by language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from semlith.languages import Language

MAX_CHARS = 800
OVERLAP_LINES = 2
# A 7 MB minified bundle would be 9,000 chunks (10 minutes of embedding here); past this
# many a file is indexed up to the cap and reported as truncated.
MAX_CHUNKS_PER_FILE = 2000
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


@dataclass(frozen=True, slots=True)
class Chunk:
    start_line: int  # 1-based, inclusive
    end_line: int
    text: str
    kind: str = "lines"
    symbol: str = ""
    context: str = ""  # enclosing definitions or headings; prepended only when embedded

    def embedding_text(self) -> str:
        return f"{self.context}\n{self.text}" if self.context else self.text


def split_identifiers(text: str) -> str:
    """The parts of camelCase / snake_case identifiers, for the FTS identifier column.

    `parseHTTPResponse` -> "parse http response", `max_retry_count` -> "max retry count".
    Only identifiers that actually split contribute; plain words are in `text` already.
    """
    parts: list[str] = []
    seen: set[str] = set()
    for ident in _IDENT.findall(text):
        if ident in seen:
            continue
        seen.add(ident)
        pieces = [p.lower() for chunk in ident.split("_") for p in CAMEL.findall(chunk)]
        if len(pieces) > 1:
            parts.append(" ".join(pieces))
    return " ".join(parts)


def line_windows(text: str, *, first_line: int = 1, max_chars: int = MAX_CHARS,
                 overlap: int = OVERLAP_LINES) -> list[Chunk]:
    """Line-aligned windows of at most `max_chars` characters, `overlap` lines shared."""
    lines = text.split("\n")
    chunks: list[Chunk] = []
    start = 0
    while start < len(lines) and len(chunks) < MAX_CHUNKS_PER_FILE:
        if len(lines[start]) > max_chars:
            chunks.extend(_hard_split(lines[start], first_line + start, max_chars))
            start += 1
            continue
        end, size = start, 0
        while end < len(lines) and len(lines[end]) <= max_chars and \
                size + len(lines[end]) + 1 <= max_chars:
            size += len(lines[end]) + 1
            end += 1
        body = "\n".join(lines[start:end])
        if body.strip():
            chunks.append(Chunk(first_line + start, first_line + end - 1, body))
        if end >= len(lines):
            break
        start = max(start + 1, end - overlap) if end - start > overlap else end
    return chunks[:MAX_CHUNKS_PER_FILE]


def _hard_split(line: str, number: int, max_chars: int) -> list[Chunk]:
    return [Chunk(number, number, line[i : i + max_chars])
            for i in range(0, min(len(line), max_chars * MAX_CHUNKS_PER_FILE), max_chars)
            if line[i : i + max_chars].strip()]


def chunk_text(text: str, language: Language | None = None, *,
               max_chars: int = MAX_CHARS) -> list[Chunk]:
    """Chunks of a file's text; the strategy depends on its language."""
    del language  # definition-aware strategies plug in here
    return line_windows(text, max_chars=max_chars)
