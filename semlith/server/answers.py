"""What the MCP tools answer, as text an agent reads: locate lists, excerpts, passages.

Pure formatting of library results (semlith/types.py), kept apart from the tool
definitions so it is tested on its own. Paths are relative to their store's root;
answers covering several stores name the store in front (`store:path`), which
`semlith_read` accepts back.
"""

from __future__ import annotations

from collections.abc import Sequence

from semlith.base.names import escape_name
from semlith.types import Definition, Hit, Passage, counted
from semlith.types.grep import Matches, rows
from semlith.types.shown import shown_line


def _tokens(text: str) -> int:
    return len(text) // 4 + 1  # the usual bytes/4 estimate


def locate(hits: Sequence[Hit], max_tokens: int, multi_store: bool, note: str = "") -> str:
    """Hits grouped by file, one line per hit: `start-end symbol · shown line` (the line
    the searcher chose, types/shown.py: the CLI's excerpt starts at it too)."""
    if not hits:
        return _noted("Nothing relevant found.", note)
    groups: dict[str, list[Hit]] = {}
    for hit in hits:
        where = f"{hit.store}:{hit.path}" if multi_store else hit.path
        groups.setdefault(escape_name(where), []).append(hit)
    out: list[str] = []
    used, shown = 0, 0
    for header, members in groups.items():
        lines = [header]
        for hit in members:
            _, text = shown_line(hit)
            label = f" {hit.symbol}" if hit.symbol else ""
            lines.append(f"  {hit.start_line}-{hit.end_line}{label} · {text[:160]}")
        cost = _tokens("\n".join(lines))
        if out and used + cost > max_tokens:
            break
        out.extend(lines)
        used += cost
        shown += len(members)
    if shown < len(hits):
        out.append(f"({counted(len(hits) - shown, 'more hit')} left out to stay within "
                   f"max_tokens={max_tokens})")
    return _noted("\n".join(out), note)


def matches(found: Matches, max_tokens: int, files_only: bool = False) -> str:
    """`path:line:text` per matching line, grouped by file, each definition's first
    matches under a `path=N=kind name` line, within `max_tokens`; with `files_only`,
    the paths of the files that match (as `rg -l`)."""
    if not found.files:
        return _noted("No line matches.", "; ".join(found.notes))
    if files_only:
        multi = len(found.stores) > 1
        return _listed([name if multi else name.split(":", 1)[1] for name in found.files],
                       max_tokens, found.more, found.notes)
    kept: list[str] = []
    used = shown = 0
    for row in rows(found.matches, multi_store=len(found.stores) > 1):
        line = row.plain(300)
        used += _tokens(line)
        if used > max_tokens:
            break
        kept.append(line)
        shown += row.role == "match"
    left = len(found.matches) - shown
    return _noted("\n".join(kept), _left_out(
        found.notes, f"{left} more matching lines here" if left else "", found.more))


def files(hits: Sequence[Hit], max_tokens: int, multi_store: bool, note: str = "") -> str:
    """The paths of the files the hits are in, best first, one a line."""
    if not hits:
        return _noted("Nothing relevant found.", note)
    paths = [f"{h.store}:{h.path}" if multi_store else h.path for h in hits]
    return _listed(list(dict.fromkeys(paths)), max_tokens, "", [note] if note else [])


def _listed(names: list[str], max_tokens: int, more: str, notes: Sequence[str]) -> str:
    """One name a line until the budget is spent, and a line saying how many were left."""
    kept: list[str] = []
    used = 0
    for name in names:
        used += _tokens(name)
        if used > max_tokens:
            break
        kept.append(escape_name(name))
    left = len(names) - len(kept)
    left_out = counted(left, "more file") if left else ""
    return _noted("\n".join(kept), _left_out(notes, left_out, more))


def _left_out(notes: Sequence[str], *parts: str) -> str:
    """The answer's notes, then what the budget or the limit left out, if anything."""
    tail = ", and ".join(filter(None, parts))
    return "; ".join([*notes, *([f"{tail} (raise max_tokens or narrow path/ext)"]
                                if tail else [])])


def excerpts(hits: Sequence[Hit], max_tokens: int, multi_store: bool, note: str = "") -> str:
    """Each hit's locator and text, until the token budget is spent."""
    if not hits:
        return _noted("Nothing relevant found.", note)
    out: list[str] = []
    used = 0
    for n, hit in enumerate(hits):
        where = hit.store_locator if multi_store else hit.locator
        block = f"{escape_name(where)}{' ' + hit.symbol if hit.symbol else ''}\n{hit.text}\n"
        if out and used + _tokens(block) > max_tokens:
            out.append(f"({counted(len(hits) - n, 'more hit')} left out to stay within "
                       f"max_tokens={max_tokens})")
            break
        out.append(block)
        used += _tokens(block)
    return _noted("\n".join(out), note)


def _noted(text: str, note: str) -> str:
    return f"{text}\n({note})" if note else text


def passage(p: Passage) -> str:
    """A read: its locator, then the lines numbered, then what was left out."""
    notes = []
    if p.symbol:
        notes.append(f"definition of {p.symbol}")
    if p.extracted:
        notes.append("text extracted from the document")
    if p.changed:
        notes.append("the file changed since it was indexed")
    head = f"{escape_name(p.path)}:{p.start_line}-{p.end_line}" \
        + (f" ({'; '.join(notes)})" if notes else "")
    body = "\n".join(f"{n:>5}  {line}" for n, line in enumerate(p.lines, start=p.start_line))
    more = p.total_lines - p.end_line
    tail = f"\n({more} more lines; read {escape_name(p.path)}:{p.end_line + 1}-{p.total_lines})" \
        if more > 0 and p.end_line - p.start_line + 1 >= 400 else ""
    return f"{head}\n{body}{tail}"


def definitions(hits: Sequence[Definition], name: str, multi_store: bool) -> str:
    if not hits:
        return f"No definition of {name!r}."
    return "\n".join(
        f"{escape_name(h.store_locator if multi_store else h.locator)} {h.kind} {h.qualname}"
        f" · {h.signature}" for h in hits)
