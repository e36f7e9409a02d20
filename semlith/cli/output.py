"""Terminal output of the CLI: progress, file lists, hits, statistics, passages.

Progress is one status line redrawn in place on a terminal, and when piped (a log or CI)
a plain line at once, at each new phase, and every few seconds. Either way the run ends
on the summary line the CLI prints: the terminal line is cleared first, and nothing says
`None`.
"""

from __future__ import annotations

import math
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

import click

from semlith.base.names import escape_name
from semlith.cli.colour import Style
from semlith.types import Hit, Passage, Progress, StoreStats, counted
from semlith.types.shown import shown_offset, title

EXCERPT_LINES = 3
PLAIN_EVERY_S = 5.0  # a line this often when piped, after the first (printed at once)
TTY_EVERY_S = 0.1  # redraws of the terminal line at most this often (and at phase changes)


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def describe(p: Progress) -> str:
    """The status line for one event ('' for "done")."""
    if p.phase == "scan":
        return f"scanning: {counted(p.files_seen, 'file')} seen, {p.files_total} to index"
    if p.phase == "model":
        return "loading the embedding model"
    if p.phase == "read":
        return (f"reading: {p.files_done}/{p.files_total} files, "
                f"{counted(p.chunks_total, 'chunk')} searchable by keyword")
    if p.phase != "embed":
        return ""
    chunks = f"{p.chunks_done}/{p.chunks_total} chunks"
    speed = (f"{p.chunks_per_s:.1f} chunks/s, ETA {_eta(p.eta_s)}" if p.chunks_per_s
             else "measuring speed")
    return f"embedding: {chunks}, {p.files_done}/{p.files_total} files done, {speed}"


class ProgressView:
    """Renders `Progress` events to `out`: a status line on a terminal, lines when piped.

    `close()` clears the terminal line so that what follows (the summary) is the last line.
    """

    def __init__(self, out: TextIO, *, tty: bool, clock: Callable[[], float] = time.monotonic,
                 width: Callable[[], int] = lambda: shutil.get_terminal_size().columns) -> None:
        self.out = out
        self.tty = tty
        self.clock = clock
        self.width = width
        self._every = TTY_EVERY_S if tty else PLAIN_EVERY_S
        # The first event and each new phase are shown at once either way: a piped run
        # that waited for _every said nothing for its first 5-15 s (issue #23).
        self._last = -math.inf
        self._phase = ""
        self._shown = False

    def __call__(self, p: Progress) -> None:
        if p.phase == "done":
            self.close()
            return
        now = self.clock()
        changed, self._phase = p.phase != self._phase, p.phase
        if now - self._last < self._every and not changed:
            return
        self._last = now
        line = describe(p)
        if self.tty:
            self.out.write(f"\r{line[: max(self.width() - 1, 10)]}\x1b[K")
            self._shown = True
        else:
            self.out.write(line + "\n")
        self.out.flush()

    def close(self) -> None:
        if self._shown:
            self.out.write("\r\x1b[K")
            self.out.flush()
            self._shown = False


@contextmanager
def progress_printer(quiet: bool) -> Iterator[Callable[[Progress], None]]:
    """A progress callback for stderr (nothing with `quiet`), its line cleared at the end."""
    if quiet:
        yield lambda p: None
        return
    view = ProgressView(sys.stderr, tty=sys.stderr.isatty())
    try:
        yield view
    finally:
        view.close()


def skip_printer() -> Callable[[str, str, str], None]:
    def show(path: str, reason: str, detail: str) -> None:
        click.echo(f"skipped {escape_name(path)}: {reason}{f' ({detail})' if detail else ''}",
                   err=True)
    return show


_IMAGE_SIZE = re.compile(r"\b\d+x\d+\b")  # in an image chunk's text (ingest/images.py)

PLAIN = Style()


def hits(hits: Sequence[Hit], *, multi_store: bool, style: Style = PLAIN) -> str:
    """Each hit's locator, definition and relevance over its lines from the shown one (the
    line the searcher chose, types/shown.py: MCP's `locate` prints the same)."""
    paint = style.paint
    blocks = []
    for hit in hits:
        where = f"[{hit.store}] " if multi_store else ""
        if hit.kind == "image":  # one chunk per picture: its path and size say it all
            size = _IMAGE_SIZE.search(hit.text)
            shown = f" (image {size.group(0)})" if size else " (image)"
            blocks.append(f"{where}{paint(escape_name(hit.path), 'path')}{shown}"
                          f"{_relevance(hit, style)}")
            continue
        name = title(hit)  # `Router.app`, or `Router (part of 566-747)`
        name = f" {paint(name, 'symbol')}" if name else ""
        rest = hit.text.split("\n", shown_offset(hit))[-1]  # from the shown line on
        lines = [line for line in rest.splitlines() if line.strip()][:EXCERPT_LINES]
        excerpt = "\n".join(f"    {line[:120]}" for line in lines)
        stale = "  [changed since indexed]" if hit.changed else ""
        blocks.append(f"{where}{_locator(hit, style)}{name}{_relevance(hit, style)}"
                      f"{stale}\n{excerpt}")
    return "\n".join(blocks)


def _locator(hit: Hit, style: Style) -> str:
    path, lines = escape_name(hit.locator).rsplit(":", 1)
    return f"{style.paint(path, 'path')}:{style.paint(lines, 'line')}"


def _relevance(hit: Hit, style: Style) -> str:
    """`  (0.83)`: the hit's 0-1 relevance (semlith/ranking/relevance.py), or nothing."""
    if hit.relevance is None:
        return ""
    return f"  ({style.paint(f'{hit.relevance:.2f}', 'relevance')})"


def stats(info: StoreStats) -> str:
    if info.error:  # it could not be counted: where it is, and why
        return (f"store      {info.name}  ({info.folder})\nroot       {info.root}\n"
                f"error      {info.error}")
    shards = info.shards
    lines = [
        f"store      {info.name}  ({info.folder})",
        f"root       {info.root}",
        f"model      {info.model} ({info.dim} dimensions)",
        f"files      {info.files} ({info.pending_files} pending)",
        f"chunks     {info.chunks}" + (f" ({info.pending_chunks} not embedded yet: found by "
                                        "keyword and symbol, not by meaning)"
                                        if info.pending_chunks else ""),
        _chunked_by(info.chunked_by),
        _vector_side(shards, info.exact_records),
    ]
    for name, space in info.spaces.items():
        if name != "text":
            lines.append(f"{name + ' space':10} {space['model']} ({space['dim']} dimensions), "
                         f"{space['vectors']} vectors")
    if info.from_cache or info.vector_cache:
        lines.append(_cache_line(info))
    if info.withheld:
        w = info.withheld
        lines.append(f"withheld   {counted(w['secret_files'], 'secret file')} (`files "
                     f"--skipped`), {counted(w['redacted_strings'], 'credential-shaped string')}"
                     f" redacted in {counted(w['redacted_files'], 'file')}")
    if info.served_by:
        lines.append(f"daemon     served by pid {info.served_by}"
                     + (", indexing now" if info.indexing else ""))
    if info.watch:
        lines.append(f"           {info.watch_line}")
    if shards.get("disk_bytes", 0) > shards.get("budget_bytes", 0):
        lines.append(f"note       the shards ({_mb(shards['disk_bytes']):.0f} MB) exceed the "
                     "memory budget: searches read the coldest ones from disk per query "
                     "(raise SEMLITH_INDEX_MEMORY to avoid it)")
    return "\n".join(lines)


def _chunked_by(strategies: dict[str, int]) -> str:
    """How files were cut; the code files cut as text for a reason (`lines (why)`) are
    counted together, their reasons left to `files --skipped`."""
    plain = {how: n for how, n in strategies.items() if not how.startswith("lines (")}
    as_text = sum(n for how, n in strategies.items() if how.startswith("lines ("))
    parts = [f"{how or 'unknown'}: {n}" for how, n in plain.items()]
    if as_text:
        parts.append(f"as text: {as_text} (`files --skipped` says why)")
    return "chunked by " + ", ".join(parts)


def _cache_line(info: StoreStats) -> str:
    """How many of the store's vectors the machine-wide cache gave, and the cache itself."""
    whose = "1 chunk's" if info.from_cache == 1 else f"{info.from_cache} chunks'"
    line = (f"cache      {whose} vectors from the vector cache, "
            f"{info.embedded} embedded")
    shared = info.vector_cache
    if shared:
        line += (f"; the cache holds {shared['entries']} vectors "
                 f"({shared['bytes'] / 1e6:.1f} MB of {shared['max_bytes'] / 1e6:.0f} MB)"
                 + (f", {shared['errors']} errors" if shared["errors"] else ""))
    return line


def _vector_side(shards: dict[str, Any], vectors: int) -> str:
    """The local shards, or the Milvus collection that holds the store's vectors."""
    if "backend" in shards:
        return (f"backend    {shards['backend']}: {vectors} rows of repo {shards['repo']!r},"
                f" {shards['collection_rows']} in collection {shards['collection']!r}")
    return (f"shards     {shards['shards']}, {shards['resident']} resident "
            f"({_mb(shards['resident_bytes']):.1f} MB of a {_mb(shards['budget_bytes']):.0f} "
            "MB budget)")


def _mb(size: int) -> float:
    """Bytes in the MB of SEMLITH_INDEX_MEMORY (2**20 bytes): a 512 budget prints 512."""
    return size / (1 << 20)


def passage(p: Passage) -> str:
    """The lines numbered, under their locator (and what the reader should know)."""
    notes = [n for n, on in (("text extracted from the document", p.extracted),
                             ("the file changed since it was indexed", p.changed)) if on]
    head = escape_name(p.locator) + (f"  ({'; '.join(notes)})" if notes else "")
    body = "\n".join(f"{n:>6}  {line}" for n, line in enumerate(p.lines, start=p.start_line))
    return f"{head}\n{body}"
