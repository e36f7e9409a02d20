"""Owner-only folders (0700) and files (0600) on POSIX; Windows keeps its default ACLs.

A store's catalog holds the text of every file it indexed, so stores and SEMLITH_HOME are
as private as the most private file in them could be. New ones are created owner-only;
an existing one is tightened (group and other bits dropped) on its next writable open.
On Windows a new folder inherits its parent's ACL, which is already per-user under the
profile, and `chmod` could only toggle the read-only flag: nothing is changed there.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger("semlith.base.private")
POSIX = os.name == "posix"
FOLDER_MODE = 0o700
FILE_MODE = 0o600
_OTHERS = 0o077  # group and other bits


def make_private_folder(path: Path) -> None:
    """Create `path` owner-only (its parents as the umask says), or tighten it."""
    path.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    tighten(path)


def create_private_file(path: Path) -> None:
    """Create an empty owner-only file at `path` unless one exists (tightened then)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        tighten(path)


def private_opener(path: str, flags: int) -> int:
    """For `open(..., opener=private_opener)`: a file it creates is owner-only."""
    return os.open(path, flags, FILE_MODE)


def tighten(path: Path) -> None:
    """Drop the group and other bits of a file or folder we own (symlinks are left)."""
    if not POSIX:
        return
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISLNK(info.st_mode) or not mode & _OTHERS:
        return
    try:
        os.chmod(path, mode & ~_OTHERS)
    except PermissionError as exc:  # another user's file in a shared folder: say so
        log.warning("cannot make %s private: %s", path, exc.strerror)


def tighten_tree(folder: Path, depth: int = 1) -> None:
    """`tighten` a folder, its entries and (to `depth` levels) their entries."""
    tighten(folder)
    try:
        entries = list(folder.iterdir())
    except FileNotFoundError:
        return
    for entry in entries:
        if depth > 0 and entry.is_dir() and not entry.is_symlink():
            tighten_tree(entry, depth - 1)
        else:
            tighten(entry)
