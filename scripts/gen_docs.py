"""Regenerate docs/cli.md (from --help) and docs/configuration.md (from SETTINGS_DOC).

usage: python scripts/gen_docs.py [--check]   (--check exits 1 when a file is stale)
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from click.testing import CliRunner

from semlith.cli import main
from semlith.settings import SETTINGS_DOC

DOCS = Path(__file__).resolve().parent.parent / "docs"


def cli_reference() -> str:
    runner = CliRunner()
    parts = ["# CLI reference\n",
             "Generated from `--help` by `python scripts/gen_docs.py`; CI checks it is "
             "current.\n"]
    ctx = click.Context(main)
    names = ["", *sorted(main.list_commands(ctx))]  # type: ignore[attr-defined]
    for name in names:
        args = [name, "--help"] if name else ["--help"]
        out = runner.invoke(main, args, terminal_width=88).output
        parts.append(f"## `semlith {name}`\n" if name else "## `semlith`\n")
        parts.append(f"```text\n{out.rstrip()}\n```\n")
    return "\n".join(parts)


def configuration() -> str:
    rows = "\n".join(f"| `{name}` | {text} |" for name, text in SETTINGS_DOC.items())
    return ("# Configuration\n\n"
            "Settings resolve as command-line flags > `SEMLITH_*` environment variables > "
            "defaults, once, when a command starts (nothing reads the environment at import "
            "time). Generated from `semlith/settings.py` by `python scripts/gen_docs.py`.\n\n"
            "| variable | meaning |\n|---|---|\n" + rows + "\n")


def main_(check: bool) -> int:
    stale = []
    for name, text in (("cli.md", cli_reference()), ("configuration.md", configuration())):
        path = DOCS / name
        if path.exists() and path.read_text() == text:
            continue
        stale.append(name)
        if not check:
            path.write_text(text)
    if check and stale:
        print(f"stale: {', '.join(stale)}; run python scripts/gen_docs.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main_("--check" in sys.argv))
