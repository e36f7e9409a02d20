"""The one table from file extensions (and a few file names) to languages.

Used by the walker (what is text), the extractor, the chunker (which grammar), the
`--lang` filter and `semlith languages`. `grammar` names the tree-sitter-language-pack
grammar; definitions are understood where `grammars/<language>.scm` exists. The formats
text is extracted from (PDF, notebooks, HTML, Office, mail...) are rows of
`formats.py`'s table, made languages here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import PurePath

from semlith.base.formats import BY_LANGUAGE, FORMATS, Format


@dataclass(frozen=True, slots=True)
class Language:
    name: str
    extensions: tuple[str, ...]
    grammar: str | None = None  # tree-sitter-language-pack name
    filenames: tuple[str, ...] = ()
    # Cut at Markdown headings: Markdown, and the documents whose readers render their
    # structure as Markdown headings (semlith/ingest/formats/).
    headings: bool = False


def _language(fmt: Format) -> Language:
    return Language(fmt.language, fmt.extensions, None, headings=fmt.headings)


def _format(name: str) -> Language:
    """A format of formats.py placed among the languages (where `semlith languages` lists
    it); the formats not placed follow the languages, in their table's order."""
    return _language(BY_LANGUAGE[name])


_LISTED: tuple[Language, ...] = (
    Language("python", (".py", ".pyi", ".pyw"), "python"),
    Language("javascript", (".js", ".mjs", ".cjs", ".jsx"), "javascript"),
    Language("typescript", (".ts", ".mts", ".cts"), "typescript"),
    Language("tsx", (".tsx",), "tsx"),
    Language("go", (".go",), "go"),
    Language("rust", (".rs",), "rust"),
    Language("java", (".java",), "java"),
    Language("c", (".c",), "c"),
    # `.h` is C++, as universal-ctags maps it: the C++ grammar reads C headers too, while
    # the C grammar fails on C++ ones (templates, namespaces, classes).
    Language("cpp", (".cc", ".cpp", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx", ".h++",
                     ".ipp", ".tpp", ".inl"), "cpp"),
    Language("csharp", (".cs",), "csharp"),
    Language("ruby", (".rb", ".rake", ".gemspec", ".ru"), "ruby",
             ("Rakefile", "Gemfile", "Guardfile")),
    Language("php", (".php",), "php"),
    Language("kotlin", (".kt", ".kts"), "kotlin"),
    Language("scala", (".scala", ".sc"), "scala"),
    Language("swift", (".swift",), "swift"),
    Language("lua", (".lua",), "lua"),
    Language("bash", (".sh", ".bash", ".zsh"), "bash"),
    Language("elixir", (".ex", ".exs"), "elixir"),
    Language("haskell", (".hs",), "haskell"),
    Language("zig", (".zig",), "zig"),
    Language("markdown", (".md", ".markdown", ".mdx"), None, headings=True),
    Language("rst", (".rst",), None),
    Language("text", (".txt", ".text"), None, ("README", "LICENSE", "CHANGELOG", "NOTICE")),
    _format("html"),
    Language("css", (".css", ".scss", ".sass", ".less"), None),
    Language("json", (".json", ".jsonc"), None),
    Language("yaml", (".yaml", ".yml"), None),
    Language("toml", (".toml",), None),
    Language("xml", (".xml", ".svg"), None),
    Language("sql", (".sql",), None),
    _format("notebook"),
    _format("pdf"),
    Language("make", (".mk",), None, ("Makefile", "GNUmakefile")),
    Language("dockerfile", (".dockerfile",), None, ("Dockerfile", "Containerfile")),
    Language("cmake", (".cmake",), None, ("CMakeLists.txt",)),
    Language("protobuf", (".proto",), None),
    Language("r", (".r", ".R"), None),
    Language("perl", (".pl", ".pm"), None),
    Language("ocaml", (".ml", ".mli"), None),
    Language("dart", (".dart",), None),
    Language("vue", (".vue",), None),
    Language("svelte", (".svelte",), None),
    Language("terraform", (".tf", ".hcl"), None),
    Language("ini", (".ini", ".cfg", ".conf", ".properties", ".env"), None),
    Language("csv", (".csv", ".tsv"), None),
    Language("tex", (".tex", ".bib"), None),
)
LANGUAGES = _LISTED + tuple(_language(f) for f in FORMATS
                            if f.language not in {lang.name for lang in _LISTED})

_BY_EXT = {ext.lower(): lang for lang in LANGUAGES for ext in lang.extensions}
_BY_NAME = {name: lang for lang in LANGUAGES for name in lang.filenames}
BY_NAME = {lang.name: lang for lang in LANGUAGES}
# Where a user types a common alias, accept it.
ALIASES = {"py": "python", "js": "javascript", "ts": "typescript", "c++": "cpp",
           "cs": "csharp", "c#": "csharp", "rb": "ruby", "sh": "bash", "shell": "bash",
           "md": "markdown", "kt": "kotlin", "rs": "rust", "golang": "go", "hs": "haskell",
           "ex": "elixir", "yml": "yaml",
           **{alias: f.language for f in FORMATS for alias in f.aliases}}


def language_of(path: str | PurePath) -> Language | None:
    """The language of a file by its name, or None when the extension is unknown."""
    name = _name(path)
    dot = name.rfind(".")
    suffix = name[dot:].lower() if 0 < dot < len(name) - 1 else ""  # PurePath's suffix
    return _BY_NAME.get(name) or _BY_EXT.get(suffix)


_SEPARATORS = ("/", "\\") if os.name == "nt" else ("/",)


def _name(path: str | PurePath) -> str:
    """PurePath(path).name, without building a PurePath for a plain relative name: this
    runs several times per file a grep reads (a third of its time with PurePath)."""
    if isinstance(path, PurePath) or not path or path.endswith(_SEPARATORS) or \
            path.endswith((".", ":")):
        return PurePath(path).name
    cut = path.rfind("/") if len(_SEPARATORS) == 1 else max(map(path.rfind, _SEPARATORS))
    return path[cut + 1:]


def catalog_kind(path: str) -> dict[str, str]:
    """The catalog's `ext` and `lang` columns for a file (keyword arguments of
    `Catalog.put_file` and `move_file`)."""
    lang = language_of(path)
    return {"ext": PurePath(path).suffix.lower(), "lang": lang.name if lang else ""}


def resolve_language(name: str) -> Language:
    """A language by name or alias (case-insensitive); ValueError lists the valid ones."""
    key = name.strip().lower()
    lang = BY_NAME.get(ALIASES.get(key, key))
    if lang is None:
        raise ValueError(f"unknown language {name!r}; known: {', '.join(sorted(BY_NAME))}")
    return lang
