"""A file's language and image-ness from its name, as PurePath reads the name (issue #45
replaced PurePath in these per-file calls with string operations)."""

from __future__ import annotations

from pathlib import PurePath, PurePosixPath

import pytest

from semlith.base import languages
from semlith.base.languages import language_of
from semlith.ingest.images import IMAGE_EXTENSIONS, is_image

NAMES = ["a.py", "x/y/Makefile", "Dockerfile", ".bashrc", "a.tar.gz", "dir.d/file", "a.",
         ".", "..", "a/.py", "A.PY", "x/", "x.md/", "b\\c.rs", "C:", "noext", "a/b.c/d.go",
         ".hidden.js", "CMakeLists.txt", "x/./y.ts", "", "pic.PNG", "a/b.svg", "x.jpeg/y"]


@pytest.mark.parametrize("name", NAMES)
def test_the_name_is_read_as_purepath_reads_it(name: str) -> None:
    pure = PurePath(name)
    by_path = languages._BY_NAME.get(pure.name) or languages._BY_EXT.get(pure.suffix.lower())
    assert language_of(name) == by_path == language_of(pure)
    assert is_image(name) == (PurePosixPath(name).suffix.lower() in IMAGE_EXTENSIONS)
