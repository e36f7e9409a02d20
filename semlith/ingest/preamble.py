"""A file's preamble: the licence banner, package line and imports before its first
definition.

In a file cut at its definitions, the lines above the first one become a chunk of
their own. Where those lines are only comments and import-like statements (`package`,
`import`, `use`, `using`, `#include`, `require`...), the chunk says what the file
depends on and under which licence, not what it does — yet its imported names and its
banner's words match questions as well as the code below them (the first chunk of 191
of gson's 226 files is banner, package and imports). Such a chunk gets the kind
`preamble` (`roles.PREAMBLE_KIND`), which search weighs below the file's code
(ranking/priors.py). A file that is nothing but imports (a re-export module, an
`__init__.py`) keeps its one chunk as it was: there the imports are the answer.

Any other line keeps the chunk as code: a module docstring, Rust's `//!` module docs, a
constant, a macro with a value; so does a comment that documents the file rather than
licensing it (more than two lines of words, or the comment right above the `package` or
`module` line, as Go's package documentation is), and a Haskell export list (`module X
( ... ) where`: it names what the file defines). The patterns are conventions shared
across languages, read line by line; a line of a multi-line import (Go's `import (`, a
JavaScript `import {` list, a Rust use tree) is a quoted path, a list of names or paths,
or a closer. Access modifiers and attributes may stand before an import (Swift's `public
import`, `@testable import`; C#'s `global using`), and a byte-order mark before the
first line. Zig imports by binding a constant (`const std = @import("std");`), and
beside such an import a constant bound to a declaration of one (`const Allocator =
std.mem.Allocator;`) is import-like too.
"""

from __future__ import annotations

import re
from dataclasses import replace

from semlith.base.roles import PREAMBLE_KIND
from semlith.ingest.plan import Chunk

_STATEMENT = (r"((@\w+|public|internal|private|fileprivate|package|global)\s+)*"  # Swift, C#
              r"(package|import|using|use|namespace|require|require_once|require_relative|"
              r"include|include_once|from|extern\s+crate|module|open|library|part)\b")
_REQUIRE = r"(const|let|var)\s+[\w${}\s,:]+=\s*require\s*\("  # CommonJS
_ZIG_IMPORT = r"(pub\s+)?const\s+\w+\s*=\s*@(import|cImport)\s*\("
# Beside a Zig import, a name bound to a declaration of one: `const Allocator =
# std.mem.Allocator;` (in JavaScript the same line is code: `const v = validator.v;`).
_ALIAS = re.compile(r"(pub\s+)?const\s+\w+\s*=\s*[\w.]+\s*;$")
_ZIG = re.compile(_ZIG_IMPORT)
# How a comment line starts, `#` aside (each pattern below reads `#` its own way); Rust's
# `//!` module docs are no comment here. The indexer's other comment rules
# (ingest/generated.py, definitions.py) ask something else and count those in.
_COMMENTS = r"//(?!!)|/\*|\*|--|\{-|-\}|;"
# A name in an import list: `Map`, `Map as M`, `Maybe(..)`.
_NAME = r"[\w$.']+(\s+as\s+[\w$]+)?(\s*\(\.\.\))?"
# A line that may stand in a preamble (stripped of leading space).
_LINE = re.compile(
    r"$|" + _COMMENTS +
    r"|#(?!\s*define\s+\w+\s+\S)"  # `#include`, `#pragma`, a guard's bare `#define`, `#` comments
    r"|" + _STATEMENT +
    r"|<\?php|\?>|declare\s*\("  # PHP's opening tag and `declare(strict_types=1);`
    r"|@file:|\[assembly:"  # Kotlin's file annotations, C#'s assembly attributes
    r"|['\"]use strict['\"]"
    r"|" + _REQUIRE + "|" + _ZIG_IMPORT +
    r"|export\s+(\*|\{[^}]*\})\s*from\b"  # re-exports
    r"|(\w+\s+)?\"[^\"]*\"\s*;?$"  # a quoted path in Go's `import (` block
    r"|[(,]?\s*" + _NAME + r"(\s*,\s*" + _NAME + r")*\s*[,;]?$"  # names of a list
    r"|(\w+::)+(\{[\w\s,:*]*\}?|\*|\w+(\s+as\s+\w+)?)\s*,?$"  # a path in a Rust use tree
    r"|[)}\]]+\s*(from\s.*)?\s*;?$"  # a list's closer: `)`, `} from 'x';`
)
# A comment-only chunk is a preamble when it is a licence banner.
_COMMENT = re.compile(r"$|" + _COMMENTS +
                      r"|#(?!\s*(include|define|if|ifdef|ifndef|endif|else|elif|pragma|undef)\b)")
_LICENCE = re.compile(r"copyright|licen[cs]e[ds]?\b|spdx-license", re.IGNORECASE)
_IMPORT = re.compile(r"#\s*include\b|" + _STATEMENT + "|" + _REQUIRE + "|" + _ZIG_IMPORT)


# Lines of a comment block that hold no words of their own: pragmas, attributes, tags.
_NO_WORDS = re.compile(r"\{-#|#!?\[|@\w")
_MARKERS = re.compile(r"^[/*#;!{}\-\s]+")
_DECLARES = re.compile(r"(package|module)\b")
# The end of a Haskell export list, `) where`: the list names what the file defines.
_EXPORTS = re.compile(r"\)\s*where$")


def is_preamble(text: str) -> bool:
    """Whether a chunk's lines are only comments and import-like statements, one of them
    at least an import, or only comments that hold a licence or copyright notice; and
    none of its comments documents the file."""
    lines = [line.strip() for line in text.removeprefix("\ufeff").split("\n")]
    if _documents(lines) or any(_EXPORTS.match(line) for line in lines):
        return False
    if all(_COMMENT.match(line) for line in lines):
        return _LICENCE.search(text) is not None
    zig = any(_ZIG.match(line) for line in lines)
    return all(_LINE.match(line) or (zig and _ALIAS.match(line)) for line in lines) and \
        any(_IMPORT.match(line) for line in lines)


def _documents(lines: list[str]) -> bool:
    """Whether a comment block (a run of comment lines) documents the file: not a licence
    banner, and more than two lines of words (abseil's `// variant.h ... This header file
    defines`), or right above the package or module line (Go's `// Package chi ...`)."""
    block: list[str] = []
    for line in [*lines, ""]:
        if line and _COMMENT.match(line) and not _NO_WORDS.match(line):
            block.append(line)
            continue
        if block and not _LICENCE.search(" ".join(block)):
            said = [_MARKERS.sub("", b) for b in block]
            words = sum(1 for b in said if any(ch.isalpha() for ch in b)
                        and not _NO_WORDS.match(b))
            if words > 2 or (words and _DECLARES.match(line)):
                return True
        block = []
    return False


def mark_preambles(chunks: list[Chunk]) -> list[Chunk]:
    """`chunks` (a file's, cut at definitions) with each chunk outside every definition
    that is only a preamble given the kind `preamble`; a file of one chunk is left as it
    is."""
    if len(chunks) < 2:
        return chunks
    return [replace(c, kind=PREAMBLE_KIND) if not c.symbol and c.kind == "code"
            and is_preamble(c.text) else c for c in chunks]
