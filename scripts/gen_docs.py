"""Regenerate docs/cli.md's reference (from --help), docs/configuration.md (from SETTINGS_DOC),
docs/languages.md, and two sections of docs/clients.md: the per-client one (from
semlith/setup/clients.py, laid out by semlith/setup/reference.py) and the tool table (from
the MCP tools' own schemas).

usage: python scripts/gen_docs.py [--check]   (--check exits 1 when a file is stale)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, cast

import click
from click.testing import CliRunner

from semlith.base.settings import SETTINGS_DOC
from semlith.cli import main

DOCS = Path(__file__).resolve().parent.parent / "docs"


CLI_BEGIN = "<!-- generated from --help by scripts/gen_docs.py: begin -->\n"


def cli(current: str) -> str:
    """docs/cli.md: the conventions written by hand, then the generated reference."""
    return _section(current, CLI_BEGIN, cli_reference(), "cli.md")


def cli_reference() -> str:
    runner = CliRunner()
    parts = ["The reference below is generated from `--help` by `python scripts/gen_docs.py`; "
             "CI checks it is current.\n"]
    ctx = click.Context(main)
    names = ["", *sorted(main.list_commands(ctx))]  # type: ignore[attr-defined]
    for name in names:
        args = [name, "--help"] if name else ["--help"]
        out = runner.invoke(main, args, prog_name="semlith", terminal_width=88).output
        parts.append(f"## `semlith {name}`\n" if name else "## `semlith`\n")
        parts.append(f"```text\n{out.rstrip()}\n```\n")
    return "\n".join(parts)


def configuration() -> str:
    from semlith.ingest.formats.limits import LIMITS_DOC, MAX_TEXT_CHARS

    rows = "\n".join(f"| `{name}` | {text} |" for name, text in SETTINGS_DOC.items())
    limits = "\n".join(f"| `{name}` | {value} | {text} |"
                       for name, (value, text) in LIMITS_DOC.items())
    return ("# Configuration\n\n"
            "Settings resolve as command-line flags > `SEMLITH_*` environment variables > "
            "defaults, once, when a command starts (nothing reads the environment at import "
            "time). Generated from `semlith/base/settings.py` by `python scripts/gen_docs.py`.\n\n"
            "| variable | meaning |\n|---|---|\n" + rows + "\n\n"
            "## Document limits\n\n"
            "Caps on reading Office, OpenDocument, EPUB, RTF and mail files "
            "(docs/formats.md), so that a hostile file costs bounded time and memory. They "
            "are constants in `semlith/ingest/formats/limits.py`, not settings: each stops "
            "hostile input and lets every real document through. Hostile structure (a zip "
            "bomb, a DOCTYPE, nesting too deep, encryption) skips the file with the reason "
            "(`semlith files --skipped` lists it); volume (rows, messages, bytes, "
            "characters) keeps the text read so far and ends it with a `[truncated: ...]` "
            "line. Every "
            f"extractor's text is also cut at {MAX_TEXT_CHARS:,} characters.\n\n"
            "| cap | value | meaning |\n|---|---|---|\n" + limits + "\n")


def languages() -> str:
    import re
    from importlib import resources

    from semlith.base.languages import LANGUAGES
    from semlith.ingest.chunk import strategy_of
    from semlith.ingest.queries import query_text

    rows = []
    for lang in LANGUAGES:
        kinds = ""
        how = strategy_of(lang)
        if how == "definitions":
            query = query_text(resources.files("semlith.grammars") / f"{lang.grammar}.scm")
            kinds = ", ".join(sorted(set(re.findall(r"@definition\.(\w+)", query))))
        how = "line windows" if how == "lines" else how
        names = " ".join(f"`{n}`" for n in lang.extensions + lang.filenames)
        rows.append(f"| {lang.name} | {names} | {how} | {kinds} |")
    return ("# Languages\n\n"
            "How each kind of file is chunked (`semlith languages` prints the same). "
            "Generated from `semlith/base/languages.py` and `grammars/*.scm` by "
            "`python scripts/gen_docs.py`.\n\n"
            "- **definitions**: cut at the definitions the language's tree-sitter query "
            "names (a function found inside a class-like definition other than a module is "
            "a method); their names fill the symbol table (`semlith symbol`).\n"
            "- **headings**: Markdown sections, nested by heading level; documents (Word, "
            "sheets, slides, books, mail) are read into Markdown-like text first "
            "(docs/formats.md).\n"
            "- **line windows**: 800-character windows with two lines of overlap. A parse "
            "that fails or takes over 3 s falls back to these too (`semlith stats` counts "
            "them).\n\n"
            "A `.h` header is read as C++ (as universal-ctags maps it): the C++ grammar "
            "reads C headers too, the C grammar fails on C++ ones. `--lang cpp` selects "
            "them.\n\n"
            "| language | files | chunking | definitions |\n|---|---|---|---|\n"
            + "\n".join(rows) + "\n")


def _argument(name: str, schema: dict[str, Any], required: bool) -> str:
    from semlith.server.arguments import describe

    text = f"`{name}`: {describe(schema)}"
    if required:
        text += ", required"
    elif "default" in schema:
        text += f", default `{json.dumps(schema['default'])}`"
    if schema.get("description"):
        text += f" ({schema['description']})"
    return text


def tool_table() -> str:
    """The MCP tools as the daemon lists them: name, description, arguments."""
    import anyio

    from semlith.library import Library
    from semlith.server.mcp import build_mcp

    rows = []
    for tool in anyio.run(build_mcp(cast(Library, None)).list_tools):  # schemas only
        schema = tool.input_schema
        required = set(schema.get("required", []))
        arguments = "; ".join(_argument(name, prop, name in required)
                              for name, prop in schema.get("properties", {}).items())
        rows.append(f"| `{tool.name}` | {tool.description} | {arguments or 'none'} |")
    return ("| tool | what it does | arguments |\n|---|---|---|\n" + "\n".join(rows)
            + "\n")


def _section(current: str, begin: str, text: str, name: str = "clients.md") -> str:
    end = "<!-- generated: end -->\n"
    if begin not in current or end not in current.split(begin, 1)[1]:
        raise SystemExit(f"docs/{name} lost its markers: {begin.strip()} ... {end.strip()}")
    head, rest = current.split(begin, 1)
    return head + begin + "\n" + text + "\n" + end + rest.split(end, 1)[1]


def clients(current: str) -> str:
    """docs/clients.md with its generated sections replaced; the rest is written by hand."""
    from semlith.setup.reference import reference

    current = _section(current, "<!-- generated from semlith/setup/clients.py by "
                                "scripts/gen_docs.py: begin -->\n", reference())
    return _section(current, "<!-- generated from the tool schemas by scripts/gen_docs.py: "
                             "begin -->\n", tool_table())


def main_(check: bool) -> int:
    stale = []
    for name, text in (("cli.md", cli((DOCS / "cli.md").read_text())),
                       ("configuration.md", configuration()),
                       ("languages.md", languages()),
                       ("clients.md", clients((DOCS / "clients.md").read_text()))):
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
