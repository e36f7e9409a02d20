"""A file's preamble — licence banner, package line, imports above its first definition —
is a chunk of the kind `preamble`, which search weighs below the file's code: its
imported names and banner words matched questions as well as the code below them."""

from __future__ import annotations

from pathlib import Path

import pytest

from semlith.base.languages import language_of
from semlith.base.roles import PREAMBLE_KIND, Role
from semlith.base.settings import Settings
from semlith.ingest.chunk import chunk_file
from semlith.ingest.preamble import is_preamble
from semlith.local import LocalLibrary
from semlith.ranking.priors import role_of
from semlith.ranking.query import analyse
from semlith.types import ChunkPlace
from tests.conftest import HashEmbedder

BANNER = ("/*\n * Copyright (C) 2010 Example Inc.\n *\n * Licensed under the Apache License, "
          "Version 2.0.\n */\n\n")
# A class long enough that the lines above it are a chunk of their own.
CLASS = ("/** Reads walruses. */\npublic final class WalrusReader {\n" + "".join(
    f"  /** Counts the tusks of walrus number {n}, one by one. */\n"
    f"  public int count{n}(Reader in) {{\n    return in.read() + {n};\n  }}\n\n"
    for n in range(12)) + "}\n")
IMPORTS = "".join(f"import com.example.colony.Walrus{n};\n" for n in range(12))
JAVA = BANNER + "package com.example.walrus;\n\n" + IMPORTS + "\n" + CLASS


@pytest.mark.parametrize("text", [
    BANNER + "package com.example;\n\nimport java.util.List;\nimport java.io.*;\n",
    "import (\n\t\"fmt\"\n\tos \"os\"\n)\n",  # Go's import block
    "'use strict';\n\n/**\n * Module dependencies.\n */\n\nvar send = require('send');\n"
    "var debug = require('debug')('x:router');\n",
    "import {\n  Store,\n  Dispatch\n} from './types/store'\nimport x from './x'\n",
    "<?php\n\ndeclare(strict_types=1);\n\nnamespace App\\Http;\n\nuse App\\Models\\User;\n",
    "#include <stdio.h>\n#include \"uv.h\"\n\n#ifndef UV_IDNA_H_\n#define UV_IDNA_H_\n",
    "{-# LANGUAGE OverloadedStrings #-}\nmodule Data.Walrus where\n\nimport Data.Text (Text)\n"
    "import qualified Data.Map as M\nimport Data.Walrus.Types (Walrus, Tusk (..), count)\n",
    "from __future__ import annotations\n\nimport os\nfrom .x import y as z\n",
    "# frozen_string_literal: true\n\nrequire 'rack'\nrequire_relative 'walrus'\n",
    BANNER,  # a licence banner alone
    "#if canImport(FoundationEssentials)\npublic import FoundationEssentials\n#else\n"
    "public import Foundation\n#endif\n@testable import Vapor\n",  # Swift
    "global using System;\nusing static System.Math;\n",  # C#
    BANNER + "@file:JvmName(\"Util\")\n\npackage com.example\n\nimport java.io.File\n",
    "using System.Runtime.CompilerServices;\n\n[assembly: InternalsVisibleTo(\"Tests\")]\n",
    "\ufeff#region License\n// Copyright (c) 2007 Someone\n//\n// Permission is hereby "
    "granted, free of charge.\n#endregion\n\nusing System;\n",  # C#, after a byte-order mark
    # Rust's use trees over several lines, and several names on a line of a list.
    "use crate::{\n    body::{Body, HttpBody},\n    response::Response,\n};\nuse http::{\n"
    "    header::{self, CONTENT_LENGTH},\n    HeaderMap, HeaderValue, Method,\n};\n"
    "use tower::util::*;\n#[cfg(feature = \"tokio\")]\nuse super::serve;\n",
    "import {\n  useState, useEffect,\n  useRef as ref\n} from 'react'\n",
    # Zig binds imports, and names from them, to constants.
    "const std = @import(\"std\");\nconst Allocator = std.mem.Allocator;\n"
    "pub const log = @import(\"log.zig\").scoped;\n",
])
def test_comments_and_imports_are_a_preamble(text: str) -> None:
    assert is_preamble(text)


@pytest.mark.parametrize("text", [
    '"""Walrus counting: the census of the colony."""\n\nimport os\n',  # module docs
    "//! Walrus counting.\n\nuse std::io;\n",  # Rust's module docs
    "import os\n\nLIMIT = 10\n",  # a constant
    "#include <stdio.h>\n#define LIMIT 10\n",  # a macro with a value
    "/* Walrus counting: the census of the colony. */\n",  # a comment, no licence
    "import os\n\nif os.name == 'nt':\n    import msvcrt\n",
    # A comment that documents the file: more than two lines of words, or the package's.
    BANNER + "// variant.h\n// -----\n//\n// This header file defines the variant type,\n"
    "// a type-safe union of the types it holds.\n\n#include <utility>\n",
    "// Package walrus counts walruses.\npackage walrus\n\nimport \"fmt\"\n",
    # A Haskell export list names what the file defines, not what it depends on.
    "{-# LANGUAGE OverloadedStrings #-}\nmodule Data.Walrus\n    ( Walrus\n    , count\n"
    "    ) where\n\nimport Data.Text (Text)\nimport qualified Data.Map as M\n",
    "module Data.Walrus (\n    Walrus, count, Tusk(..),\n  ) where\n\nimport Data.Text (Text)\n",
    "use std::io;\n\nstatic LIMITS: [u8; 2] = [1, 2];\n",  # a static with a value
    "use std::io;\n\nimpl_walrus!(Tusk, Flipper);\n",  # a macro call
    # Without a Zig import, a name bound to a member is code (JavaScript's `validators`).
    "import validator from './validator.js';\n\nconst validators = validator.validators;\n",
])
def test_other_lines_keep_it_code(text: str) -> None:
    assert not is_preamble(text)


def test_the_chunk_above_the_first_definition_is_marked() -> None:
    chunks = chunk_file(JAVA, language_of("WalrusReader.java")).chunks
    assert chunks[0].kind == PREAMBLE_KIND and chunks[0].start_line == 1
    assert all(c.kind != PREAMBLE_KIND for c in chunks[1:])


ZIG = ("const std = @import(\"std\");\nconst mem = std.mem;\nconst Allocator = mem.Allocator;\n"
       + "".join(f"const colony{n} = @import(\"colony{n}.zig\");\n" for n in range(8))
       + "const Walrus = colony0.Walrus;\n\n/// Counts the tusks of a walrus, one by one.\n"
       "pub fn count(w: Walrus) usize {\n" + "".join(
           f"    const tusk{n} = w.tusk({n}) orelse return {n}; // the tusk at {n}\n"
           for n in range(16)) + "    return w.tusks;\n}\n")


def test_a_zig_files_imports_are_its_preamble() -> None:
    chunks = chunk_file(ZIG, language_of("src/walrus.zig")).chunks
    assert (chunks[0].start_line, chunks[0].end_line, chunks[0].kind) == (1, 12, PREAMBLE_KIND)
    assert all(c.kind != PREAMBLE_KIND for c in chunks[1:])


def test_a_file_of_imports_alone_is_left_as_it_is() -> None:
    """A re-export module (`__init__.py`, `websockets.py` of three imports) is its imports."""
    chunks = chunk_file("from .reader import Reader as Reader\nfrom .x import y as y\n",
                        language_of("pkg/__init__.py")).chunks
    assert [c.kind for c in chunks] == ["code"]


def test_a_preamble_weighs_below_code_unless_the_question_asks_for_imports() -> None:
    place = ChunkPlace(1, "src/WalrusReader.java", 1, 10, PREAMBLE_KIND)
    assert role_of(place) is Role.SOURCE  # its file's role; the kind has its own factor
    assert not analyse("how are walruses read").wants(Role.PREAMBLE)
    assert analyse("which files import the walrus reader").wants(Role.PREAMBLE)
    assert analyse("what licence is the walrus reader under").wants(Role.PREAMBLE)


def test_the_code_leads_its_own_preamble(tmp_path: Path, settings: Settings) -> None:
    """The banner and imports repeat the question's words more often than the code does;
    the code is still first, and the preamble is still found (second)."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "WalrusReader.java").write_text(
        BANNER + "package walrus.reader;\n\n" + IMPORTS.replace("colony", "reader") + "\n"
        + CLASS)
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    library.index([str(root)])
    hits = library.search("walrus reader", k=20).hits
    kinds = [h.kind for h in hits]
    assert kinds[0] != PREAMBLE_KIND and PREAMBLE_KIND in kinds
    assert hits[kinds.index(PREAMBLE_KIND)].start_line == 1
