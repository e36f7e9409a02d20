"""Ignore files (`.gitignore` syntax) read as git reads them, compiled by `wildmatch`.

The walker (`walk.py`) decides which files apply where and in what precedence; this
module reads one file into its ordered rules, cached by mtime and size. Lines are bytes,
split as git's dir.c splits them: a UTF-8 BOM is skipped, only "\\n" ends a line (and a
"\\r" before it is dropped), a NUL ends it early, "#" starts a comment, and trailing spaces
go unless a backslash escapes the first of them.
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache

from semlith.ingest.wildmatch import Rule, compile_rule

MAX_IGNORE_FILE_BYTES = 1 << 20
# The rules of one ignore file in order; each matches a path itself, as UTF-8 bytes.
Rules = tuple[Rule, ...]
_BOM = b"\xef\xbb\xbf"


def load_ignore(path: str) -> Rules:
    """The compiled patterns of an ignore file; empty when there is none."""
    try:
        info = os.stat(path)
    except OSError:
        return ()
    if not stat.S_ISREG(info.st_mode):
        return ()
    return _compile_ignore(path, info.st_mtime_ns, info.st_size)


@lru_cache(maxsize=4096)
def _compile_ignore(path: str, mtime_ns: int, size: int) -> Rules:
    """Keyed by mtime and size so an edited file is read again."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_IGNORE_FILE_BYTES)
    except OSError:
        return ()  # as in git, an ignore file that cannot be read ignores nothing
    return parse_ignore(data)


def parse_ignore(data: bytes) -> Rules:
    """The rules of an ignore file's contents. Lines git cannot use (a lone "!" or "\\",
    an unclosed "[", ...) never match there, so they are left out."""
    rules = []
    for line in data.removeprefix(_BOM).split(b"\n"):
        line = line.removesuffix(b"\r").split(b"\0", 1)[0]  # git reads a C string
        if line and not line.startswith(b"#"):
            rule = compile_rule(_trim_trailing_spaces(line))
            if rule is not None:
                rules.append(rule)
    return tuple(rules)


def _trim_trailing_spaces(line: bytes) -> bytes:
    """git's trim_trailing_spaces: the trailing spaces go, but an odd run of backslashes
    before them escapes the first."""
    body = line.rstrip(b" ")
    if len(body) < len(line) and (len(body) - len(body.rstrip(b"\\"))) % 2:
        return body + b" "
    return body
