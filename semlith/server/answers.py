"""What the MCP tools answer, as text an agent reads: locate lists, excerpts, passages.

Pure formatting of library results (semlith/types.py), kept apart from the tool
definitions so it is tested on its own. Paths are relative to their store's root;
answers covering several stores name the store in front (`store:path`), which
`semlith_read` accepts back.
"""

from __future__ import annotations

from collections.abc import Sequence

from semlith.base.names import escape_name
from semlith.types import Definition, FileEntry, Hit, Passage, SkipEntry, StoreStats, counted
from semlith.types.grep import Matches, rows
from semlith.types.shown import fragment, part_note, shown_line

CHARS_PER_TOKEN = 4  # the usual bytes/4 estimate, as the graph's budgets count
# An answer without a max_tokens argument (read, symbol, files, stats) stays within
# this: one major MCP client refuses a tool result above 25,000 tokens, and a read of a
# file of 50 lines of 21,000 characters was 1,050,421 characters (issue #47).
ANSWER_TOKENS = 20_000
ANSWER_CHARS = ANSWER_TOKENS * CHARS_PER_TOKEN
MAX_TOKENS = 25_000  # the most a max_tokens argument may ask for (graph/answers.py's too)
# A name on an answer's line (a symbol, a section's heading path) is cut to this: a
# Markdown heading of 40,000 characters was one chunk's symbol, on every line it named.
LABEL_CHARS = 200
NOTE_CHARS = 2_000  # the notes beside an answer (one a store that failed) are cut to this
BOUND = f"answers stay within {ANSWER_TOKENS:,} tokens"


def _tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + 1


def label(name: str) -> str:
    """`name` as an answer's line shows it: cut to LABEL_CHARS."""
    return name if len(name) <= LABEL_CHARS else name[:LABEL_CHARS - 1] + "\u2026"


def fitted(lines: Sequence[str], chars: int) -> list[str]:
    """The first of `lines` that fit in `chars` characters, a newline after each."""
    used = 0
    for n, line in enumerate(lines):
        used += len(line) + 1
        if used > chars:
            return list(lines[:n])
    return list(lines)


def checked_budget(max_tokens: int) -> int:
    """`max_tokens` as characters; ValueError with the range when it is out of it."""
    if not 100 <= max_tokens <= MAX_TOKENS:
        raise ValueError(f"max_tokens must be 100 to {MAX_TOKENS:,}, got {max_tokens}")
    return max_tokens * CHARS_PER_TOKEN


def locate(hits: Sequence[Hit], max_tokens: int, multi_store: bool, note: str = "") -> str:
    """Hits grouped by file, one line per hit: `start-end symbol · shown line` (the line
    the searcher chose, types/shown.py: the CLI's excerpt starts at it too), whole files
    until the next does not fit in `max_tokens` (the first file: as many hits as fit,
    its first cut to fit; its path is never cut)."""
    if not hits:
        return _noted("Nothing relevant found.", note)
    groups: dict[str, list[Hit]] = {}
    for hit in hits:
        where = f"{hit.store}:{hit.path}" if multi_store else hit.path
        groups.setdefault(escape_name(where), []).append(hit)
    out: list[str] = []
    room, shown = _room(max_tokens, note), 0
    for header, members in groups.items():
        lines = [header]
        for hit in members:
            _, text = shown_line(hit)
            name = _named(hit)
            stale = " [changed since indexed: semlith_read shows it now]" if hit.changed \
                else ""
            lines.append(f"  {hit.start_line}-{hit.end_line}{name}{stale} · {text[:160]}")
        kept = fitted(lines, room)
        if len(kept) < len(lines):
            if not out:  # the first file's hits that fit; its first, cut to what is left
                out = kept if len(kept) > 1 else [header, lines[1][:room - len(header) - 2]]
                shown = len(out) - 1
            break
        out += kept
        room -= sum(len(line) + 1 for line in kept)
        shown += len(members)
    if shown < len(hits):
        out.append(f"({counted(len(hits) - shown, 'more hit')} left out to stay within "
                   f"max_tokens={max_tokens})")
    return _noted("\n".join(out), note)


def _room(max_tokens: int, note: str) -> int:
    """The characters an answer's lines may take: its budget, less its notes and the
    line saying what was left out."""
    return max_tokens * CHARS_PER_TOKEN - min(len(note), NOTE_CHARS) - 80


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
    """Each hit's locator and text, until the token budget is spent (the first hit's
    text cut to fit; its locator never). A hit that can show its whole definition
    (search/whole.py) shows it only where the budget still holds it after the hits
    that fit as the chunks the ranking found: a whole definition never pushes a hit
    out; the best hits widen first."""
    if not hits:
        return _noted("Nothing relevant found.", note)
    room = _room(max_tokens, note)
    parts = [fragment(hit) for hit in hits]
    blocks = [_block(hit, multi_store) for hit in parts]
    fit = used = 0
    for block in blocks:
        if used + len(block) + 1 > room:
            break
        fit, used = fit + 1, used + len(block) + 1
    if not fit:  # the first hit's chunk, cut to fit; its locator never
        where = escape_name(parts[0].store_locator if multi_store else parts[0].locator)
        blocks, fit = [blocks[0][:max(room - 2, len(where))] + "\n"], 1
    for n, hit in enumerate(hits[:fit]):
        whole = _block(hit, multi_store) if hit.found[0] else blocks[n]
        if whole is not blocks[n] and used + len(whole) - len(blocks[n]) <= room:
            used += len(whole) - len(blocks[n])
            blocks[n] = whole
    out = blocks[:fit]
    if fit < len(hits):
        out.append(f"({counted(len(hits) - fit, 'more hit')} left out to stay within "
                   f"max_tokens={max_tokens})")
    return _noted("\n".join(out), note)


def _block(hit: Hit, multi_store: bool) -> str:
    where = hit.store_locator if multi_store else hit.locator
    return f"{escape_name(where)}{_named(hit)}\n{hit.text}\n"


def _named(hit: Hit) -> str:
    """` Router.app` or ` Router (part of 566-747)` (types/shown.py), the name cut to
    LABEL_CHARS; nothing for a hit outside any definition."""
    return f" {label(hit.symbol)}{part_note(hit)}" if hit.symbol else ""


def _noted(text: str, note: str) -> str:
    if len(note) > NOTE_CHARS:  # a note a failed store, of hundreds
        note = note[:NOTE_CHARS - 1] + "\u2026"
    return f"{text}\n({note})" if note else text


def passage(p: Passage, max_chars: int = ANSWER_CHARS) -> str:
    """A read: its locator, then the lines numbered, then what was left out. Within
    `max_chars`: lines whole until the next does not fit; a first line longer than the
    whole answer is cut, and the answer says so."""
    notes = []
    if p.symbol:
        notes.append(f"definition of {label(p.symbol)}")
    if p.extracted:
        notes.append("text extracted from the document")
    if p.changed:
        notes.append("the file changed since it was indexed")
    name = escape_name(p.path)
    rows = [f"{n:>5}  {line}" for n, line in enumerate(p.lines, start=p.start_line)]
    room = max_chars - len(name) * 3 - 300  # the head and the tail line name the path
    shown = fitted(rows, room)
    cut = ""
    if not shown and rows:
        shown = [rows[0][:room]]
        cut = f"line {p.start_line} cut at {room - 7:,} of {len(p.lines[0]):,} characters"
    end = p.start_line + len(shown) - 1
    head = f"{name}:{p.start_line}-{end}" + (f" ({'; '.join(notes)})" if notes else "")
    if end < p.end_line:
        tail = f"lines {end + 1}-{p.end_line} not shown ({BOUND}); read {name}:{end + 1}-" \
               f"{p.end_line}"
    elif p.total_lines > end and end - p.start_line + 1 >= 400:
        tail = f"{p.total_lines - end} more lines; read {name}:{end + 1}-{p.total_lines}"
    else:
        tail = ""
    parts = [head, *shown] + [f"({part})" for part in (cut, tail) if part]
    return "\n".join(parts)


def definitions(hits: Sequence[Definition], name: str, multi_store: bool,
                max_chars: int = ANSWER_CHARS) -> str:
    """One line a definition, best first, within `max_chars`."""
    if not hits:
        return f"No definition of {label(name)!r}."
    lines = fitted([f"{escape_name(h.store_locator if multi_store else h.locator)} {h.kind} "
                    f"{label(h.qualname)} · {h.signature}" for h in hits], max_chars - 200)
    left = len(hits) - len(lines)
    return "\n".join(lines + ([f"({counted(left, 'more definition')} not shown; {BOUND})"]
                              if left else []))


def outline(found: Sequence[Definition], target: str, max_tokens: int) -> str:
    """A file's definitions, one a line, within `max_tokens`."""
    lines = fitted([f"{d.start_line}-{d.end_line} {d.kind} {label(d.qualname or d.name)} · "
                    f"{d.signature}" for d in found], checked_budget(max_tokens) - 100)
    if len(lines) < len(found):
        lines.append(f"({len(found) - len(lines)} more definitions: raise max_tokens)")
    return "\n".join(lines) or f"{label(target)}: no definitions (cut as text, or prose)"


def file_list(rows: Sequence[tuple[str, str]], what: str, limit: int,
              max_chars: int = ANSWER_CHARS) -> str:
    """(store, line) rows as `[store] N files` then at most `limit` lines a store,
    within `max_chars`; what was left out, said at the end."""
    by_store: dict[str, list[str]] = {}
    for store, row in rows:
        by_store.setdefault(store, []).append(row)
    lines: list[str] = []
    room, left, unlisted = max_chars - 300, 0, 0
    for store, mine in by_store.items():
        head = f"[{store}] " + (f"{len(mine)} {what}" if what == "skipped"
                                else counted(len(mine), what))
        kept = fitted([head, *mine[:limit]], room) if not left else []
        room -= sum(len(line) + 1 for line in kept)
        lines += kept
        if not kept:
            unlisted += 1
        if len(kept) <= min(limit, len(mine)):  # the budget ran out in this store
            left += len(mine) - max(len(kept) - 1, 0)
        elif len(mine) > limit:
            lines.append(f"({len(mine) - limit} more not shown; raise limit)")
            room -= len(lines[-1]) + 1
    if left:
        not_listed = f" and {counted(unlisted, 'store')} not listed" if unlisted else ""
        lines.append(f"({counted(left, 'more path')} not shown{not_listed}; {BOUND}: pass "
                     "stores to list one store)")
    return "\n".join(lines)


def files_text(entries: Sequence[FileEntry], limit: int,
               max_chars: int = ANSWER_CHARS) -> str:
    """`semlith_files`: each store's indexed paths (pending ones marked)."""
    return file_list([(f.store, escape_name(f.path)
                       + ("" if f.state == "indexed" else "\t(pending)")) for f in entries],
                     "file", limit, max_chars) or "No files."


def skipped_text(entries: Sequence[SkipEntry], limit: int,
                 max_chars: int = ANSWER_CHARS) -> str:
    """`semlith_files` with `skipped`: each store's skipped paths, with why."""
    return file_list([(s.store, f"{escape_name(s.path)}\t{s.reason}"
                                f"{f' ({escape_name(s.detail)})' if s.detail else ''}")
                      for s in entries], "skipped", limit, max_chars) or "No files."


def stats_text(infos: Sequence[StoreStats], max_chars: int = ANSWER_CHARS) -> str:
    """`semlith_stats`: a line a store (two when it is watched), within `max_chars`,
    saying how many stores were left out."""
    lines = []
    for info in infos:
        if info.error:  # one store that failed does not hide the others (#47)
            lines.append(f"{info.name}: not counted: {info.error}")
            continue
        lines.append(f"{info.name}: root {info.root}, {counted(info.files, 'file')} "
                     f"({info.pending_files} pending), {counted(info.chunks, 'chunk')}"
                     + (f" ({info.pending_chunks} not embedded yet)"
                        if info.pending_chunks else "") + ", model "
                     f"{info.model}, indexing {info.indexing}"
                     + (f", {info.from_cache} chunks from the vector cache"
                        if info.from_cache else "")
                     + (f", vectors in {info.shards['backend']}"
                        if "backend" in info.shards else ""))
        if info.watch:
            lines.append("  " + info.watch_line)
    kept = fitted(lines, max_chars - 200)
    if len(kept) == len(lines):
        return "\n".join(lines)
    shown = sum(1 for line in kept if not line.startswith("  "))
    return "\n".join([*kept, f"({counted(len(infos) - shown, 'more store')} not shown; "
                              f"{BOUND}: pass stores to choose)"])
