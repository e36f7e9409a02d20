"""Ignore files (`.gitignore` syntax) read as git reads them, compiled by `wildmatch`,
and layered as git layers them.

A folder's layers are the ignore files that apply in it, shallowest first
(`with_folder`, from the root's `.git/info/exclude` down); `ignored_by` judges a path
against them with git's precedence. One file is read into its ordered rules, cached by
mtime and size. Lines are bytes,
split as git's dir.c splits them: a UTF-8 BOM is skipped, only "\\n" ends a line (and a
"\\r" before it is dropped), a NUL ends it early, "#" starts a comment, and trailing spaces
go unless a backslash escapes the first of them.

As in git (since 2.32), an ignore file in the tree that is a symbolic link is not read: it
could name a file outside the root. Patterns match regardless of ASCII case when the root's
git config sets `core.ignoreCase` (git sets it on a case-insensitive file system, the
default on macOS and Windows).
"""

from __future__ import annotations

import logging
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from semlith.ingest.wildmatch import Rule, compile_rule

MAX_IGNORE_FILE_BYTES = 1 << 20
# The rules of one ignore file in order; each matches a path itself, as UTF-8 bytes.
Rules = tuple[Rule, ...]
_BOM = b"\xef\xbb\xbf"
# Judged in this order, each on its own: a `.semlithignore` can exclude more than the
# `.gitignore` files, but cannot re-include what they exclude.
IGNORE_FILES = (".gitignore", ".semlithignore")
_GIT_EXCLUDE = (".git", "info", "exclude")
_SECTION = re.compile(rb"^\s*\[\s*([A-Za-z0-9.-]+)")
_IGNORECASE = re.compile(rb"^\s*ignorecase\s*(?:=\s*([^;#\s]*)|[;#]|$)", re.IGNORECASE)
_TRUE = frozenset({b"true", b"yes", b"on", b"1"})  # a bare key is true, `key =` false
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Layer:
    base: str  # the folder holding the ignore file, relative to the root: "" or "src/"
    rules: Rules
    name: str  # which kind of ignore file (IGNORE_FILES): `.git/info/exclude` is a .gitignore


def git_exclude(root: str, casefold: bool = False) -> tuple[Layer, ...]:
    """The root's `.git/info/exclude`, below every `.gitignore` (as in git)."""
    rules = load_ignore(os.path.join(root, *_GIT_EXCLUDE), casefold=casefold)
    return (Layer("", rules, ".gitignore"),) if rules else ()


def ignore_case(root: str) -> bool:
    """Whether the git repository at `root` sets `core.ignoreCase` (its `.git/config`, or
    a worktree's common config); False when `root` is no repository or cannot be read."""
    config = os.path.join(root, ".git", "config")
    try:
        if os.path.isfile(os.path.join(root, ".git")):  # a worktree or submodule
            with open(os.path.join(root, ".git"), "rb") as file:
                gitdir = file.read(4096).partition(b"gitdir:")[2].strip().decode()
            gitdir = os.path.join(root, gitdir)
            common = os.path.join(gitdir, "commondir")
            if os.path.isfile(common):
                with open(common, "rb") as file:
                    gitdir = os.path.join(gitdir, file.read(4096).strip().decode())
            config = os.path.join(gitdir, "config")
        info = os.stat(config)
    except (OSError, UnicodeDecodeError):
        return False
    return _config_ignores_case(config, info.st_mtime_ns, info.st_size)


@lru_cache(maxsize=256)
def _config_ignores_case(config: str, mtime_ns: int, size: int) -> bool:
    """`core.ignoreCase` in a git config file, keyed by mtime and size (the watcher asks
    for every event)."""
    try:
        with open(config, "rb") as file:
            lines = file.read(MAX_IGNORE_FILE_BYTES).split(b"\n")
    except OSError:
        return False
    section, value = b"", False
    for line in lines:
        if (head := _SECTION.match(line)) is not None:
            section = head.group(1).lower()
        elif section == b"core" and (key := _IGNORECASE.match(line)) is not None:
            value = key.group(1) is None or key.group(1).lower() in _TRUE  # the last wins
    return value


def with_folder(layers: tuple[Layer, ...], path: str, rel: str,
                has: Callable[[str], bool], casefold: bool = False) -> tuple[Layer, ...]:
    """`layers` and the ignore files of the folder at `path` (`rel` from the root)."""
    for name in IGNORE_FILES:
        if has(name) and (rules := load_ignore(os.path.join(path, name), follow=False,
                                               casefold=casefold)):
            layers = (*layers, Layer(rel, rules, name))
    return layers


def ignored_by(layers: tuple[Layer, ...], rel: str, is_dir: bool) -> tuple[str | None, bool]:
    """Git's precedence: the deepest ignore file with a pattern matching `rel` decides, and
    within it the last matching pattern (folders above `rel` were judged on the way down).
    Returns the kind of ignore file that ignores it (or None) and whether `.semlithignore`
    decided with a negation (the path is opted in)."""
    opted = False
    for name in IGNORE_FILES:
        for layer in reversed(layers):
            if layer.name != name:
                continue
            # Rules match bytes, as git does (wildmatch.py); a name that is not UTF-8 keeps
            # its own bytes.
            path = (rel[len(layer.base) :] + ("/" if is_dir else "")).encode(
                "utf-8", "surrogateescape")
            ignores = next(
                (inc for regex, inc in reversed(layer.rules) if regex.search(path)), None
            )
            if ignores is not None:
                if ignores:
                    return name, False
                opted = name == ".semlithignore"
                break
    return None, opted


def load_ignore(path: str, *, follow: bool = True, casefold: bool = False) -> Rules:
    """The compiled patterns of an ignore file; empty when there is none (or, unless
    `follow`, when it is a symbolic link)."""
    try:
        info = os.stat(path) if follow else os.lstat(path)
    except OSError:
        return ()
    if stat.S_ISLNK(info.st_mode):
        _not_followed(path)
    if not stat.S_ISREG(info.st_mode):
        return ()
    return _compile_ignore(path, info.st_mtime_ns, info.st_size, follow, casefold)


@lru_cache(maxsize=256)
def _not_followed(path: str) -> None:
    """Say once per path that a symlinked ignore file is not read (git warns too)."""
    log.warning("%s is a symbolic link: not read, as git does not read it", path)


@lru_cache(maxsize=4096)
def _compile_ignore(path: str, mtime_ns: int, size: int, follow: bool = True,
                    casefold: bool = False) -> Rules:
    """Keyed by mtime and size so an edited file is read again."""
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0)
    if not follow:  # a link put there since the lstat is refused (Windows has no O_NOFOLLOW)
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        with open(os.open(path, flags), "rb") as file:
            data = file.read(MAX_IGNORE_FILE_BYTES)
    except OSError:
        return ()  # as in git, an ignore file that cannot be read ignores nothing
    return parse_ignore(data, casefold)


def parse_ignore(data: bytes, casefold: bool = False) -> Rules:
    """The rules of an ignore file's contents. Lines git cannot use (a lone "!" or "\\",
    an unclosed "[", ...) never match there, so they are left out."""
    rules = []
    for line in data.removeprefix(_BOM).split(b"\n"):
        line = line.removesuffix(b"\r").split(b"\0", 1)[0]  # git reads a C string
        if line and not line.startswith(b"#"):
            rule = compile_rule(_trim_trailing_spaces(line), casefold)
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
