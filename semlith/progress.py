"""Terminal output of the CLI: progress (rich on a terminal, plain lines when piped)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import click

from semlith.indexer import Progress
from semlith.ingest.names import escape_name
from semlith.ingest.walk import Skipped
from semlith.search import Hit

EXCERPT_LINES = 3
PLAIN_EVERY_S = 5.0


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


@contextmanager
def progress_printer(quiet: bool) -> Iterator[Callable[[Progress], None]]:
    """A progress callback: a rich bar on a terminal, a line every few seconds otherwise."""
    if quiet:
        yield lambda p: None
        return
    if sys.stderr.isatty():
        from rich.progress import BarColumn, TextColumn
        from rich.progress import Progress as Bar

        with Bar(TextColumn("{task.description}"), BarColumn(),
                 TextColumn("{task.completed}/{task.total} files  {task.fields[info]}"),
                 transient=True) as bar:
            task = bar.add_task("indexing", total=None, info="")

            def update(p: Progress) -> None:
                info = (f"{p.chunks_done} chunks  {p.chunks_per_s:.1f} chunks/s  "
                        f"ETA {_eta(p.eta_s)}") if p.phase == "embed" else "scanning"
                bar.update(task, completed=p.files_done, total=p.files_total or None,
                           info=info)
            yield update
        return
    last = [time.monotonic()]  # the first line after PLAIN_EVERY_S, not at once

    def plain(p: Progress) -> None:
        now = time.monotonic()
        if p.phase == "embed" and now - last[0] >= PLAIN_EVERY_S:
            last[0] = now
            click.echo(f"{p.files_done}/{p.files_total} files, {p.chunks_done} chunks, "
                       f"{p.chunks_per_s:.1f} chunks/s, ETA {_eta(p.eta_s)}", err=True)
    yield plain


def skip_printer() -> Callable[[Skipped], None]:
    def show(item: Skipped) -> None:
        detail = f" ({item.detail})" if item.detail else ""
        click.echo(f"skipped {escape_name(item.rel)}: {item.reason}{detail}", err=True)
    return show


def format_files(rows: Sequence[dict[str, Any]]) -> str:
    """`files` as text: one line per path (escaped: a newline in a name stays on its line),
    a tab, then its state or skip reason."""
    lines = []
    for row in rows:
        extra = row.get("reason") or row["state"]
        detail = f" ({escape_name(row['detail'])})" if row.get("detail") else ""
        lines.append(f"{escape_name(row['path'])}\t{extra}{detail}")
    return "\n".join(lines)


def format_hits(hits: Sequence[Hit], *, multi_store: bool) -> str:
    blocks = []
    for hit in hits:
        where = f"[{hit.store}] " if multi_store else ""
        title = f" {hit.symbol}" if hit.symbol else ""
        lines = [line for line in hit.text.splitlines() if line.strip()]
        # Start the excerpt at the definition the hit is about, when it is in view.
        first = next((i for i, line in enumerate(lines) if hit.symbol and hit.symbol in line), 0)
        lines = lines[first : first + EXCERPT_LINES]
        excerpt = "\n".join(f"    {line[:120]}" for line in lines)
        blocks.append(f"{where}{escape_name(hit.locator)}{title}  ({hit.score:.4f})\n{excerpt}")
    return "\n".join(blocks)


def format_stats(info: dict[str, Any]) -> str:
    shards = info["shards"]
    lines = [
        f"store      {info['name']}  ({info['folder']})",
        f"root       {info['root']}",
        f"model      {info['model']} ({info['dim']} dimensions)",
        f"files      {info['files']} ({info['pending_files']} pending)",
        f"chunks     {info['chunks']}",
        "chunked by " + ", ".join(f"{how or 'unknown'}: {n}"
                                  for how, n in info["chunked_by"].items()),
        f"shards     {shards['shards']}, {shards['resident']} resident "
        f"({shards['resident_bytes'] / 1e6:.1f} MB of a {shards['budget_bytes'] / 1e6:.0f} MB "
        "budget)",
    ]
    withheld = info.get("withheld")
    if withheld:
        lines.append(f"withheld   {withheld['secret_files']} secret files (`files --skipped`), "
                     f"{withheld['redacted_strings']} credential-shaped strings redacted in "
                     f"{withheld['redacted_files']} files")
    if info.get("watch"):
        from semlith.watch import describe_watch

        lines.append(f"daemon     {describe_watch(info['watch'])}")
    if shards["disk_bytes"] > shards["budget_bytes"]:
        lines.append(f"note       the shards ({shards['disk_bytes'] / 1e6:.0f} MB) exceed the "
                     "memory budget: searches read the coldest ones from disk per query "
                     "(raise SEMLITH_INDEX_MEMORY to avoid it)")
    return "\n".join(lines)
