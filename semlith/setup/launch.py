"""How a client starts `semlith mcp`: the absolute path of the `semlith` that ran `setup`.

A bare `semlith` works only where the client's PATH finds it, and an editor started from
a desktop menu, a dock or a login shell does not see a virtual environment activated in
a terminal (issue #45). So the entry names this installation's script by its absolute
path, unresolved: a virtualenv's bin/ or pipx's ~/.local/bin link stays valid across
upgrades where the file it points to does not. `doctor` reads an entry back with
`argv_of` and judges it with `problem`.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCRIPT_NAMES = ("semlith", "semlith.exe")
HTTP_FIELDS = ("url", "httpUrl", "serverUrl", "uri")  # how clients name a remote server


@dataclass(frozen=True, slots=True)
class Launch:
    """The command a client runs to start `semlith mcp`; `note` says why, when not plain."""

    command: str = "semlith"
    args: tuple[str, ...] = ("mcp",)
    note: str = ""

    @property
    def argv(self) -> tuple[str, ...]:
        return (self.command, *self.args)


# What the docs show: an absolute path, as `setup` writes it (`which semlith` prints yours).
EXAMPLE = Launch("/home/you/.venv/bin/semlith")


def locate(argv0: str | None = None, python: str | None = None) -> Launch:
    """This installation's `semlith`, by absolute path: the script that is running (its
    argv[0]), else the script beside the interpreter, else the interpreter running the
    package (`python -P -m semlith mcp`)."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    python = sys.executable if python is None else python
    if argv0 and Path(argv0).name in SCRIPT_NAMES:
        for candidate in (argv0, argv0 + ".exe"):  # a Windows launcher may drop .exe
            if Path(candidate).is_file():
                return Launch(os.path.abspath(candidate))
    folder = Path(os.path.abspath(python)).parent  # not resolved: a venv's python links out
    for name in SCRIPT_NAMES:
        if (folder / name).is_file():
            return Launch(str(folder / name))
    # No script (a source checkout): -P keeps a `semlith/` folder in the client's working
    # folder from shadowing the package (issue #12).
    return Launch(os.path.abspath(python), ("-P", "-m", "semlith", "mcp"),
                  note=f"no `semlith` script beside {python}; the config runs the package "
                  "with that interpreter")


def argv_of(entry: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The command line a client's stdio entry runs, whatever the client calls its
    fields (`command` + `args`, opencode's `command` list, goose's `cmd`); None when the
    entry names no command."""
    command = entry.get("command", entry.get("cmd"))
    args = entry.get("args", [])
    if isinstance(command, list) and command and all(isinstance(a, str) for a in command):
        return tuple(command)
    if isinstance(command, str) and command and isinstance(args, list) \
            and all(isinstance(a, str) for a in args):
        return (command, *args)
    return None


def is_http(entry: Mapping[str, Any]) -> bool:
    """Whether a client's entry connects to the daemon over HTTP (no command to judge)."""
    return any(field in entry for field in HTTP_FIELDS)


def problem(argv: tuple[str, ...] | None, launch: Launch,
            which: Callable[[str], str | None] = shutil.which) -> str:
    """What is wrong with a client starting `argv` rather than `launch`; "" when it
    starts this semlith (the same file by another path, a symlink, counts)."""
    if not argv:
        return "names no command to start"
    if argv[-1] != "mcp":
        return f"runs {' '.join(argv)!r}, not `semlith mcp`"
    program = argv[0]
    if not os.path.isabs(program):
        found = which(program)
        if found is None:
            return f"names a bare `{program}`, which is not on PATH here either"
        return (f"names a bare `{program}`, which an editor started outside this shell "
                "may not find")
    if not Path(program).is_file():
        return f"names {program}, which does not exist"
    if argv[1:] != launch.args or not _same_file(program, launch.command):
        return f"starts {' '.join(argv)}, a semlith other than this one ({launch.command})"
    return ""


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False
