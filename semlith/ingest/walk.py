"""Roots -> candidate files, with a reason for every path left out.

Each entry of a folder is judged in this order; the first rule that applies wins:

1. `.git` is skipped silently: it is never content. A name that is not valid UTF-8 ->
   BAD_NAME (its record shows the name escaped): SQLite cannot store it.
2. A path given in ``exclude`` (the store folder) -> STORE.
3. `.gitignore` files with git's semantics: a nested file applies to its folder and
   below, patterns are anchored to the folder holding the file, ``!negation``,
   directory-only ``build/`` and ``**`` work, and a file inside an excluded folder
   cannot be re-included. `.git/info/exclude` at the root is honoured too (below every
   `.gitignore`, as in git). They apply whether or not the folder is a git repository:
   whoever keeps build output out of git wants it out of search too. As in git, a symlinked
   ignore file is not read, and `core.ignoreCase` in the root's git config folds case.
4. `.semlithignore` files: the same syntax and nesting, judged on their own, so they can
   exclude more than `.gitignore` but cannot re-include what it excludes.
5. Generated or vendored folders (`VENDORED_FOLDERS`, ``*.egg-info``, a virtualenv).
6. Hidden names (starting with ".").
7. A file or folder whose name holds a credential (`secrets.credential_in_name`: a file
   named after a GitHub token) -> SECRET, whatever the ignore files say. Secret files by
   name (`secrets.secret_name`: private keys, env and credentials files, keystores...)
   -> SECRET, unless a `.semlithignore` negation (``!tests/certs/*.pem``) names the file:
   then it is a candidate with ``opted_in`` set. Secrets by content shape
   are judged by the indexer, which reads the bytes anyway (the walk reads no file, so a
   run over unchanged files opens none).
8. Symlinks are followed when they resolve inside the root; one leading outside is never
   read, a broken one is unreadable, and a folder already on the current path is a loop.
   A link to a file or folder that the walk takes under its own name is an ALIAS (its
   detail names the target): indexed once (`CLAUDE.md -> AGENTS.md`, `latest -> v3`).
9. Folders that cannot be listed, files that cannot be stat'ed, non-regular files and
   files over ``max_bytes`` (documents: over their format's cap, 64 MiB for Office and
   mail files whose bulk is images never decompressed; see formats/limits.py).

A skipped folder is one record (its ``rel`` ends with "/") and is not descended into.
Credentials in a record's path and detail are replaced by a marker (`secrets.redact_name`).
The walk never reads file contents; binary detection belongs to `extract`.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from operator import attrgetter
from pathlib import Path, PurePosixPath

from semlith.base.names import escape_name, is_storable
from semlith.ingest.formats import size_limit
from semlith.ingest.ignore import Layer, git_exclude, ignore_case, ignored_by, with_folder
from semlith.ingest.reading import DEFAULT_MAX_BYTES
from semlith.ingest.secrets import credential_in_name, redact_name, secret_name

_ANYWHERE: frozenset[str] = frozenset()
_JS_PY_MANIFESTS = frozenset({"package.json", "setup.py", "pyproject.toml", "setup.cfg"})
# Folder name -> the manifests one of which must sit beside it (empty: vendored anywhere).
# Beyond these, a folder named `*.egg-info` and any folder holding `pyvenv.cfg` (a
# virtualenv, whatever it is called) are vendored.
VENDORED_FOLDERS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("node_modules", "__pycache__", "site-packages", "bower_components", ".tox",
                     ".mypy_cache", ".pytest_cache", ".ruff_cache", ".gradle", ".next", ".nuxt",
                     ".svelte-kit", "coverage"), _ANYWHERE),
    "vendor": frozenset({"go.mod", "composer.json"}),
    "target": frozenset({"Cargo.toml", "pom.xml", "build.gradle", "build.gradle.kts", "build.sbt"}),
    "dist": _JS_PY_MANIFESTS,
    "build": _JS_PY_MANIFESTS,
    "out": _JS_PY_MANIFESTS,
}
VENDORED_SUFFIX = ".egg-info"
VENV_MARKER = "pyvenv.cfg"


class SkipReason(StrEnum):
    """Why a path was left out; the value is the text `index --verbose` shows."""

    GITIGNORE = "ignored by .gitignore"
    SEMLITHIGNORE = "ignored by .semlithignore"
    HIDDEN = "hidden"
    VENDORED = "generated or vendored folder"
    TOO_LARGE = "too large"
    SYMLINK_LOOP = "symlink loop"
    OUTSIDE_ROOT = "symlink leads outside the root"
    ALIAS = "symlink to a path indexed under its own name"
    UNREADABLE = "unreadable"
    STORE = "the store folder"
    SPECIAL = "not a regular file"
    SECRET = "secret"
    BAD_NAME = "name is not UTF-8"
    GENERATED = "generated"  # or minified: judged by the indexer (ingest/generated.py)


# Ignore file name (ignore.IGNORE_FILES) -> the reason it gives.
_IGNORED = {".gitignore": SkipReason.GITIGNORE, ".semlithignore": SkipReason.SEMLITHIGNORE}
_NOTHING: Callable[[str], bool] = frozenset[str]().__contains__


@dataclass(frozen=True, slots=True)
class Candidate:
    path: Path  # absolute
    rel: str  # posix path relative to the root, e.g. "src/app.py"
    size: int
    mtime_ns: int
    opted_in: bool = False  # a .semlithignore negation names it: no secret rule applies


@dataclass(frozen=True, slots=True)
class Skipped:
    rel: str  # relative posix path; a folder ends with "/"
    reason: SkipReason
    detail: str = ""  # the error text, the size, the link target...


class _Skip(Exception):
    """Raised inside the walker, turned into a `Skipped` record."""

    def __init__(self, reason: SkipReason, detail: str = "") -> None:
        super().__init__(reason, detail)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class _Folder:
    path: str  # absolute, as reached from the root (maybe through in-root symlinks)
    rel: str  # "" for the root, else "src/lib/"
    real: str  # with symlinks resolved
    layers: tuple[Layer, ...]  # ignore files that apply here, shallowest first
    seen: frozenset[tuple[int, int]]  # (st_dev, st_ino) of the real folders root..here
    has: Callable[[str], bool]  # whether a name exists in this folder


def walk_files(
    root: Path,
    *,
    start: str = "",
    exclude: Sequence[Path] = (),
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Iterator[Candidate | Skipped]:
    """Every file under `root` worth indexing, and a `Skipped` record for every path left out.

    Args:
        root: the folder whose ignore files and rules apply; `rel` paths are relative to it.
        start: a folder below `root` ("src/lib") to walk instead of the whole root; the
            ignore files and rules of the folders above it still apply.
        exclude: folders to leave out with reason STORE (the store folder).
        max_bytes: files larger than this are skipped as TOO_LARGE (a document format's
            larger cap wins: `formats.size_limit`).

    Yields candidates and skips depth-first, sorted by name within each folder.

    Raises:
        OSError: when `root` (or `start`) is missing, not a folder or cannot be listed.
    """
    walker = _Walker(root, exclude, max_bytes)
    top = walker.folder(None, walker.root, "", walker.real, _exists_in(walker.root))
    for name in PurePosixPath(start).parts if start else ():
        try:
            if not is_storable(name):
                raise _Skip(SkipReason.BAD_NAME)
            top, _ = walker.step(top, name, last=False)
        except _Skip as skip:
            yield _skipped(start.rstrip("/") + "/", skip.reason, skip.detail)
            return
    stack: list[tuple[_Folder, Iterator[os.DirEntry[str]]]] = [(top, iter(_listing(top.path)))]
    while stack:
        folder, pending = stack[-1]
        entry = next(pending, None)
        if entry is None:
            stack.pop()
            continue
        result = walker.visit(folder, entry)
        if isinstance(result, tuple):
            stack.append(result)
        elif result is not None:
            yield result


def is_ignored(
    root: Path, rel: str, *, exclude: Sequence[Path] = (), max_bytes: int = DEFAULT_MAX_BYTES
) -> SkipReason | None:
    """Why `walk_files(root)` would leave out `rel` (or a folder above it), or None.

    For a path that no longer exists (a deleted file seen by a watcher) only the rules
    about names apply. Ignore files are cached by (path, mtime), so calls are cheap.

    Raises:
        ValueError: when `rel` is empty, absolute or climbs out of the root with "..".
        OSError: when `root` itself is missing or not a folder.
    """
    try:
        _descend(root, rel, exclude, max_bytes)
    except _Skip as skip:
        return skip.reason
    except OSError as exc:
        return _reason_for(exc)
    return None


def is_opted_in(root: Path, rel: str, *, exclude: Sequence[Path] = ()) -> bool:
    """Whether a `.semlithignore` negation names the file `rel` (and the walk would take
    it): the secret rules then do not withhold it. False for an ignored path.

    Raises:
        ValueError: when `rel` is empty, absolute or climbs out of the root with "..".
        OSError: when `root` itself is missing or not a folder.
    """
    try:
        return _descend(root, rel, exclude, DEFAULT_MAX_BYTES)
    except (_Skip, OSError):
        return False


def _descend(root: Path, rel: str, exclude: Sequence[Path], max_bytes: int) -> bool:
    """Judge each part of `rel` as the walk would; raises _Skip or OSError, else returns
    whether the last part is opted in."""
    parts = PurePosixPath(rel).parts
    if not parts or PurePosixPath(rel).is_absolute() or ".." in parts:
        raise ValueError(f"expected a path relative to the root, got {rel!r}")
    if not is_storable(rel):
        raise _Skip(SkipReason.BAD_NAME)
    walker = _Walker(root, exclude, max_bytes)
    folder = walker.folder(None, walker.root, "", walker.real, _exists_in(walker.root))
    opted = False
    for index, name in enumerate(parts):
        if name == ".git":
            raise _Skip(SkipReason.HIDDEN)  # the walk skips it without a record
        folder, opted = walker.step(folder, name, last=index == len(parts) - 1)
    return opted


class _Walker:
    """The rules of one walk: the root, the excluded folders and the size limit."""

    def __init__(self, root: Path, exclude: Sequence[Path], max_bytes: int) -> None:
        self.root = os.path.abspath(root)
        self.real = os.path.realpath(root)
        self.inside = os.path.join(self.real, "")  # the real root with a trailing separator
        self.excluded = frozenset(os.path.realpath(path) for path in exclude)
        self.max_bytes = max_bytes
        self.casefold = ignore_case(self.root)  # git's core.ignoreCase

    def folder(
        self, parent: _Folder | None, path: str, rel: str, real: str, has: Callable[[str], bool]
    ) -> _Folder:
        """A folder to descend into, with its ignore files loaded; raises _Skip on a loop."""
        info = os.stat(path)
        key = (info.st_dev, info.st_ino)
        if parent is not None and key in parent.seen:
            raise _Skip(SkipReason.SYMLINK_LOOP, "leads back to a folder above it")
        layers = with_folder(parent.layers if parent else git_exclude(self.root, self.casefold),
                             path, rel, has, self.casefold)
        seen = parent.seen if parent else frozenset()
        return _Folder(path, rel, real, layers, seen | {key}, has)

    def visit(
        self, folder: _Folder, entry: os.DirEntry[str]
    ) -> Candidate | Skipped | tuple[_Folder, Iterator[os.DirEntry[str]]] | None:
        """One folder entry: a candidate, a skip, a folder to descend into, or None."""
        name = entry.name
        if name == ".git":
            return None
        rel = folder.rel + name
        is_dir = False
        try:
            is_dir = entry.is_dir()
            if not is_storable(name):
                raise _Skip(SkipReason.BAD_NAME)
            opted = self.check_name(folder, name, is_dir)
            linked = entry.is_symlink()
            real = self.resolve(entry.path) if linked else os.path.join(folder.real, name)
            if not is_dir:
                return self.candidate(entry.path, rel, entry.stat(), opted)
            entries = _listing(entry.path)
            names = frozenset(child.name for child in entries)
            child = self.folder(folder, entry.path, rel + "/", real, names.__contains__)
            return child, iter(entries)
        except _Skip as skip:
            return _skipped(rel + "/" if is_dir else rel, skip.reason, skip.detail)
        except OSError as exc:
            return _skipped(rel + "/" if is_dir else rel, _reason_for(exc),
                            exc.strerror or str(exc))

    def step(self, folder: _Folder, name: str, *, last: bool) -> tuple[_Folder, bool]:
        """`is_ignored`'s move one name down from `folder`, and whether that name is opted
        in; raises _Skip or OSError."""
        path = os.path.join(folder.path, name)
        exists = _lexists(path)
        is_dir = os.path.isdir(path) if exists else not last
        opted = self.check_name(folder, name, is_dir)
        rel = folder.rel + name
        real = os.path.join(folder.real, name)
        if not exists or not (is_dir or last):  # nothing below: only name rules apply
            return _Folder(path, rel + "/", real, folder.layers, folder.seen, _NOTHING), opted
        if os.path.islink(path):
            real = self.resolve(path)
        if not is_dir:
            self.candidate(path, rel, os.stat(path))
            return folder, opted
        os.scandir(path).close()  # the walk would fail to list it
        return self.folder(folder, path, rel + "/", real, _exists_in(path)), opted

    def check_name(self, folder: _Folder, name: str, is_dir: bool) -> bool:
        """The rules that need only the name and the folder; raises _Skip, else returns
        whether a `.semlithignore` negation names the path (it is opted in)."""
        if os.path.join(folder.real, name) in self.excluded:
            raise _Skip(SkipReason.STORE)
        ignored, opted = ignored_by(folder.layers, folder.rel + name, is_dir)
        if ignored is not None:
            raise _Skip(_IGNORED[ignored])
        if is_dir and _is_vendored(folder, name):
            raise _Skip(SkipReason.VENDORED)
        if name.startswith("."):
            raise _Skip(SkipReason.HIDDEN)
        # A credential in a name would be stored and shown with the path: even a negation
        # does not opt such a file in, and a folder is not descended into.
        held = credential_in_name(name)
        if held is not None:
            raise _Skip(SkipReason.SECRET, f"{held} in the name")
        if not is_dir and not opted:
            why = secret_name(name)
            if why is not None:
                raise _Skip(SkipReason.SECRET, why)
        return opted

    def resolve(self, path: str) -> str:
        """The real path of a symlink that stays inside the root; raises _Skip otherwise."""
        try:
            os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            raise _Skip(SkipReason.UNREADABLE, "broken symlink") from None
        real = os.path.realpath(path)
        if real != self.real and not real.startswith(self.inside):
            raise _Skip(SkipReason.OUTSIDE_ROOT, real)
        if real in self.excluded:
            raise _Skip(SkipReason.STORE)
        target = os.path.relpath(real, self.real).replace(os.sep, "/")
        excluded = [Path(path) for path in self.excluded]
        if target != "." and is_ignored(Path(self.real), target, exclude=excluded,
                                        max_bytes=self.max_bytes) is None:
            raise _Skip(SkipReason.ALIAS, target)  # taken under its own name
        return real

    def candidate(self, path: str, rel: str, info: os.stat_result,
                  opted_in: bool = False) -> Candidate:
        """A regular file within the size limit; raises _Skip otherwise."""
        if not stat.S_ISREG(info.st_mode):
            raise _Skip(SkipReason.SPECIAL, _kind(info.st_mode))
        if info.st_size > size_limit(rel, self.max_bytes):
            raise _Skip(SkipReason.TOO_LARGE, f"{info.st_size} bytes")
        return Candidate(Path(path), rel, info.st_size, info.st_mtime_ns, opted_in)


def _is_vendored(folder: _Folder, name: str) -> bool:
    manifests = VENDORED_FOLDERS.get(name)
    if manifests is not None and (not manifests or any(map(folder.has, manifests))):
        return True
    if name.endswith(VENDORED_SUFFIX):
        return True
    return os.path.isfile(os.path.join(folder.path, name, VENV_MARKER))


def _listing(path: str) -> list[os.DirEntry[str]]:
    with os.scandir(path) as entries:
        return sorted(entries, key=attrgetter("name"))


def _skipped(rel: str, reason: SkipReason, detail: str = "") -> Skipped:
    """A skip record whose text can be stored and printed on one line, with any credential
    in a name (a hidden `.ghp_...` file, a link to one) replaced by a marker."""
    return Skipped(escape_name(redact_name(rel)), reason, escape_name(redact_name(detail)))


def _lexists(path: str) -> bool:
    """Like os.path.lexists, but an error other than "not found" is raised, not False."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def _exists_in(folder: str) -> Callable[[str], bool]:
    return lambda name: os.path.lexists(os.path.join(folder, name))


def _reason_for(exc: OSError) -> SkipReason:
    return SkipReason.SYMLINK_LOOP if exc.errno == errno.ELOOP else SkipReason.UNREADABLE


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "device"))
    return next((name for test, name in kinds if test(mode)), "special file")
