"""Colour on a terminal, as ripgrep does it (issue #23).

`--color auto` (the default) colours only when stdout is a terminal, `NO_COLOR` is unset
or empty (https://no-color.org) and `TERM` is not `dumb`; `always` colours even into a
pipe (`semlith search ... --color always | less -R`); `never` does not. `--json` is never
coloured. The colours are ripgrep's defaults: paths magenta, line numbers green, matches
bold red; semlith's own parts, definition lines and relevance, yellow.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import click

from semlith.types.grep import Row

MODES = ("auto", "always", "never")
PARTS: dict[str, dict[str, Any]] = {
    "path": {"fg": "magenta"},
    "line": {"fg": "green"},
    "match": {"fg": "red", "bold": True},
    "definition": {"fg": "yellow"},
    "relevance": {"fg": "yellow"},
    "symbol": {"bold": True},
}


def wanted(mode: str, *, tty: bool | None = None, environ: Mapping[str, str] | None = None
           ) -> bool:
    """Whether to colour stdout under `--color mode`."""
    if mode != "auto":
        return mode == "always"
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR") or environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty() if tty is None else tty


@dataclass(frozen=True, slots=True)
class Style:
    """Whether this output is coloured, and the painter of its parts."""

    on: bool = False

    def paint(self, text: str, part: str) -> str:
        return click.style(text, **PARTS[part]) if self.on and text else text

    def echo(self, text: str) -> None:
        """`text` on stdout; uncoloured, any escape codes it holds are removed."""
        click.echo(text, color=self.on)


def color_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--color", "color", type=click.Choice(MODES), default="auto",
        show_default=True, help="Colour the output: auto (a terminal, unless NO_COLOR is "
        "set), always, never. --json is never coloured.")(func)


def row(r: Row, style: Style, width: int | None = None) -> str:
    """One grep row as `Row.plain` prints it, with its parts painted."""
    paint = style.paint
    if r.role == "break":
        return r.plain()
    sep, text = r.separator, r.text[:width]
    if r.role == "definition":
        text = paint(text, "definition")
    elif r.role == "match":
        text = _highlight(text, r.spans, style)
    return f"{paint(r.where, 'path')}{sep}{paint(str(r.line), 'line')}{sep}{text}"


def _highlight(text: str, spans: tuple[tuple[int, int], ...], style: Style) -> str:
    out, at = [], 0
    for start, end in spans:
        if start < at or start >= len(text):
            continue
        out += [text[at:start], style.paint(text[start:end], "match")]
        at = end
    return "".join(out) + text[at:]
