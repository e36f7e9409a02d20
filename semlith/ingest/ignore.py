"""Ignore files (`.gitignore` syntax) compiled to regexes that match a path itself.

The walker (`walk.py`) decides which files apply where and in what precedence; this
module only reads one file into its ordered patterns, cached by mtime and size.
"""

from __future__ import annotations

import os
import re
import stat
from functools import lru_cache

from pathspec import GitIgnoreSpec, RegexPattern

MAX_IGNORE_FILE_BYTES = 1 << 20
# The patterns of one ignore file in order: (regex matching a path itself, ignores it).
Rules = tuple[tuple[re.Pattern[str], bool], ...]


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
            text = file.read(MAX_IGNORE_FILE_BYTES).decode("utf-8", "replace")
    except OSError:
        return ()  # as in git, an ignore file that cannot be read ignores nothing
    lines = [_as_git_means(line) for line in text.splitlines()]
    try:
        spec = GitIgnoreSpec.from_lines(lines)
    except ValueError:  # git drops invalid lines (a lone "!" or "\"); so do we
        spec = GitIgnoreSpec.from_lines([line for line in lines if _valid(line)])
    # pathspec's regexes also match every path below a matching folder ("build/" matches
    # "build/x.py"), so a negation for a folder would wrongly re-include a file in it that
    # an outer ignore file excludes. Git judges each path on its own while descending, so
    # anchor each regex at the end: it must match the path itself.
    return tuple(
        (re.compile(f"(?:{pattern.regex.pattern})\\Z", pattern.regex.flags), pattern.include)
        for pattern in spec.patterns
        if isinstance(pattern, RegexPattern)
        and pattern.regex is not None
        and pattern.include is not None
    )


def _as_git_means(line: str) -> str:
    """Rewrite a trailing "/**": git reads "d/**" as everything inside d, but pathspec's
    regex for it is just "^d/", which matches the folder d itself and (anchored at the
    end) nothing inside. "d/**/*" means the same to git and compiles to what git means."""
    body = line.rstrip()
    if body.endswith("/**"):
        return body + "/*"
    if body.endswith("/**/"):
        return body + "*/"
    return line


def _valid(line: str) -> bool:
    try:
        GitIgnoreSpec.from_lines([line])
    except ValueError:
        return False
    return True
