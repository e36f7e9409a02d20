"""Folders a new store may not index unless the person asks for it by name.

An index request names a folder; the daemon then stores its text, watches it and serves
it to agents. `{"paths": ["/etc"]}` sent to the daemon's API used to create
`/etc/.semlith` and serve `/etc` (issue #26). A store is therefore never created for
the root of a file system, an operating-system folder or a home folder itself unless the
request says so (`semlith index --allow-system`), and never for a path that is not
absolute or climbs with `..` (the CLI sends resolved paths; anything else did not come
from a person's command line).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path, PurePath

from semlith.errors import RefusedFolder

# Folders that are system folders themselves, and everything inside them.
_SYSTEM_TREES = ("/etc", "/proc", "/sys", "/dev", "/boot", "/run", "/bin", "/sbin",
                 "/lib", "/lib32", "/lib64", "/libx32", "/private/etc",
                 "/System", "/Library", "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib64",
                 "/usr/libexec", "/usr/include", "/usr/share", "/var/lib", "/var/log",
                 "/var/cache", "/var/run")
# Folders too broad to be a project, though projects live below them.
_BROAD = ("/", "/usr", "/usr/local", "/var", "/opt", "/srv", "/tmp", "/home", "/Users",
          "/Applications", "/Volumes", "/private", "/private/tmp", "/private/var",
          "/mnt", "/media")
_WINDOWS_TREES = ("Windows", "Program Files", "Program Files (x86)", "ProgramData")


def system_folder(path: Path) -> str | None:
    """Why `path` (absolute, resolved) is a system folder, or None when it is not."""
    if sys.platform == "win32":
        return _windows(path)
    text = path.as_posix()
    for tree in _SYSTEM_TREES:
        if text == tree or text.startswith(tree + "/"):
            return f"{tree} is a system folder"
    if text in _BROAD:
        return f"{text} holds far more than one project"
    if path == Path.home().resolve():
        return "it is a home folder itself"
    return None


def _windows(path: Path) -> str | None:
    parts = PurePath(path).parts
    if len(parts) <= 1:
        return f"{path} is the root of a drive"
    if parts[1] in _WINDOWS_TREES:
        return f"{parts[0]}{parts[1]} is a system folder"
    if len(parts) == 2 and parts[1] == "Users":
        return f"{path} holds far more than one project"
    if path == Path.home().resolve():
        return "it is a home folder itself"
    return None


def check_request_path(raw: str) -> Path:
    """A path an index request names: absolute and without `..`, else RefusedFolder."""
    pure = PurePath(raw)
    if not pure.is_absolute():
        raise RefusedFolder(f"{raw!r} is not an absolute path; name the folder in full")
    if ".." in pure.parts:
        raise RefusedFolder(f"{raw!r} climbs with '..'; name the folder itself")
    return Path(os.path.normpath(raw))


def check_new_root(root: Path, *, allow_system: bool) -> None:
    """Refuse a new store for a system folder unless `allow_system` says it was asked."""
    why = None if allow_system else system_folder(root.resolve())
    if why is not None:
        raise RefusedFolder(f"not indexing {str(root)!r}: {why}; index a project folder, "
                            "or pass --allow-system if you mean it")
