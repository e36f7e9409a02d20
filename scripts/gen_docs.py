"""Regenerate docs/cli.md's reference (from --help), docs/configuration.md (from SETTINGS_DOC),
docs/languages.md, two sections of docs/clients.md: the per-client one (from
semlith/setup/clients.py, laid out by semlith/setup/reference.py) and the tool table (from
the MCP tools' own schemas), and docs/architecture.md's module map (from the package and
module docstrings, in the order of its layers table).

usage: python scripts/gen_docs.py [--check]   (--check exits 1 when a file is stale)
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path
from typing import Any, cast

import click
from click.testing import CliRunner

from semlith.base.settings import SETTINGS_DOC
from semlith.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


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


MAP_BEGIN = ("<!-- generated from the package and module docstrings by scripts/gen_docs.py: "
             "begin -->\n")
# The grammars ship as semlith.grammars from the top of the repository (pyproject.toml).
GRAMMARS = "grammars/"


def layers(text: str) -> list[tuple[str, list[str]]]:
    """docs/architecture.md's layers table, lowest first: (layer, the dotted names of the
    packages and modules in it). Its second column holds names only: `base/` is
    semlith.base, `errors` semlith.errors, `__init__` the face (semlith itself)."""
    section = text.split("\n## Layers\n", 1)[-1].split("\n#", 1)[0]
    found = []
    for layer, cell in re.findall(r"^\| (\w+) \| (.+?) \|", section, re.M):
        if layer != "layer":
            found.append((layer, [_dotted(name) for name in re.findall(r"`([^`]+)`", cell)]))
    if not found:
        raise SystemExit("docs/architecture.md lost its layers table (## Layers)")
    return found


def _dotted(name: str) -> str:
    name = name.rstrip("/").removesuffix(".py")
    return "semlith" if name == "__init__" else f"semlith.{name.replace('/', '.')}"


def _source(dotted: str) -> Path:
    """The file of a module, or the __init__.py of a package, by dotted name."""
    if dotted == "semlith.grammars":
        return ROOT / "grammars" / "__init__.py"
    path = ROOT.joinpath(*dotted.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _docstring(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text()))
    if not doc:
        raise SystemExit(f"{path.relative_to(ROOT)} has no docstring: say what it is")
    return doc


def summary(path: Path) -> str:
    """A module's first sentence, on one line."""
    paragraph = " ".join(_docstring(path).split("\n\n")[0].split())
    return re.split(r"(?<=[.!?])\s+(?=[A-Z`\"(])", paragraph, maxsplit=1)[0]


def _rows(dotted: str) -> list[str]:
    """A package's row (its docstring's first paragraph), its modules' and its
    subpackages' (depth first); a module's one row."""
    source = _source(dotted)
    shown = GRAMMARS if dotted == "semlith.grammars" else (
        source.parent.relative_to(ROOT / "semlith").as_posix() + "/"
        if source.name == "__init__.py" and dotted != "semlith"
        else source.relative_to(ROOT / "semlith").as_posix())
    if source.name != "__init__.py" or dotted == "semlith":
        return [f"| `{shown}` | {_cell(summary(source))} |"]
    paragraph = " ".join(_docstring(source).split("\n\n")[0].split())
    rows = [f"| **`{shown}`** | {_cell(paragraph)} |"]
    for path in sorted(source.parent.glob("*.py")):
        if path.name != "__init__.py":
            rows.append(f"| `{shown}{path.name}` | {_cell(summary(path))} |")
    for folder in sorted(source.parent.iterdir()):
        if (folder / "__init__.py").is_file():
            rows += _rows(f"{dotted}.{folder.name}")
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def module_map(text: str) -> str:
    """Every package and module by layer: a package's docstring's first paragraph, a
    module's first sentence (`python scripts/gen_docs.py --check` fails when stale)."""
    parts = []
    for layer, names in layers(text):
        rows = [row for name in names for row in _rows(name)]
        parts.append(f"### {layer.capitalize()}\n\n| module | what it is |\n|---|---|\n"
                     + "\n".join(rows) + "\n")
    return "\n".join(parts)


def architecture(current: str) -> str:
    """docs/architecture.md with its module map generated; the rest is written by hand."""
    return _section(current, MAP_BEGIN, module_map(current), "architecture.md")


def main_(check: bool) -> int:
    stale = []
    for name, text in (("cli.md", cli((DOCS / "cli.md").read_text())),
                       ("configuration.md", configuration()),
                       ("languages.md", languages()),
                       ("clients.md", clients((DOCS / "clients.md").read_text())),
                       ("architecture.md", architecture((DOCS / "architecture.md").read_text()))):
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
