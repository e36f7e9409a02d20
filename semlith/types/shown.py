"""The line a hit is shown by: chosen once, by the searcher, for every adapter.

The MCP `locate` answer prints it after the hit's locator, the CLI starts the hit's
excerpt at it, the portal too. Before, MCP showed the line sharing the most words with
the question and the CLI started at the definition line, so one hit read differently in
each. The rule keeps both: the line holding the most of the question's words (words as
the keyword index reads them, `parse_args` -> parse, args; stopwords do not count unless
the question is nothing else); among lines holding as many, or when none holds one, the
definition's line (the first naming the hit's symbol); then the first non-blank line.
The hit's header already names its definition, so a line with more of the question's
words says more than the signature. Display only: the ranking never reads it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from semlith.base.text import STOPWORDS, index_tokens
from semlith.types import Hit


def question_words(query: str) -> frozenset[str]:
    """The words of a question that a shown line is scored by (read once per search)."""
    found = frozenset(index_tokens(query.lower()))
    return found - STOPWORDS or found


def choose_line(text: str, start_line: int, symbol: str, asked: frozenset[str]) -> int:
    """The number of the line of a hit's `text` (starting at `start_line`) to show
    first, by the rule in the module docstring; `asked` is `question_words(query)`."""
    best, best_key = start_line, (-1, False)
    defined = False
    finder = _finder(asked) if asked else None
    # Lowered once; a line is tokenised only when one of the words is in it (most are
    # not): 0.8 -> 0.2 ms for ten hits of 40 lines, each search.
    for offset, (line, low) in enumerate(zip(text.split("\n"), text.lower().split("\n"),
                                             strict=False)):
        if not line.strip():
            continue
        names = bool(symbol) and not defined and symbol in line
        defined = defined or names
        held = len(asked.intersection(index_tokens(low))) \
            if finder is not None and finder.search(low) else 0
        if (held, names) > best_key:
            best, best_key = start_line + offset, (held, names)
    return best


@lru_cache(maxsize=64)
def _finder(asked: frozenset[str]) -> re.Pattern[str]:
    """Whether a lowered line holds one of `asked` as a substring (a token needs that)."""
    return re.compile("|".join(re.escape(w) for w in sorted(asked)))


def shown_offset(hit: Hit) -> int:
    """Where the shown line is in `hit.text.split("\\n")`. A hit from a daemon older than
    the choice (`line` 0) shows its first non-blank line."""
    lines = hit.text.split("\n")
    offset = hit.line - hit.start_line
    if hit.line and 0 <= offset < len(lines):
        return offset
    return next((n for n, line in enumerate(lines) if line.strip()), 0)


def shown_line(hit: Hit) -> tuple[int, str]:
    """The shown line's number and its text, stripped."""
    offset = shown_offset(hit)
    return hit.start_line + offset, hit.text.split("\n")[offset].strip()


def is_part(hit: Hit) -> bool:
    """Whether a hit shows a part of its definition only (too large to show whole)."""
    first, last = hit.definition
    return bool(first) and not (hit.start_line <= first and last <= hit.end_line)


def part_note(hit: Hit) -> str:
    """` (part of 566-747)` after the name of a hit that shows a part of its definition
    only, the same in every adapter (CLI, MCP, portal); else nothing."""
    return f" (part of {hit.definition[0]}-{hit.definition[1]})" if is_part(hit) else ""


def title(hit: Hit) -> str:
    """The name a hit is shown under: its definition's qualified name (`Router.app`),
    and its part note (`Router (part of 566-747)`)."""
    return f"{hit.symbol}{part_note(hit)}" if hit.symbol else ""


def fragment(hit: Hit) -> Hit:
    """A hit that shows its whole definition cut back to the chunk the ranking found
    (what a budget that cannot hold the whole shows, server/answers.py); another hit as
    it is."""
    first, last = hit.found
    if not first:
        return hit
    lines = hit.text.split("\n")[first - hit.start_line:last - hit.start_line + 1]
    line = hit.line if first <= hit.line <= last else first
    return replace(hit, start_line=first, end_line=last, text="\n".join(lines), line=line,
                   found=(0, 0))
