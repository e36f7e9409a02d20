"""OS advisory locks on a file, portable: `fcntl.flock` on POSIX, `msvcrt.locking` on
Windows. The OS drops a lock when its holder dies, even on kill -9.

`try_lock`/`unlock` are the primitives (the store's writer lock uses them);
`held(path)` waits for a short cross-process critical section, such as the registry's
read-modify-write (home.py).
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from semlith.base.private import private_opener

# Windows locks byte ranges; lock one far past any content so others can still read it.
_WIN_LOCK_OFFSET = 1 << 20


def try_lock(handle: IO[bytes]) -> bool:
    """Take the exclusive lock on an open file without waiting; False when it is held."""
    if sys.platform == "win32":
        import msvcrt

        handle.seek(_WIN_LOCK_OFFSET)
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def unlock(handle: IO[bytes]) -> None:
    if sys.platform == "win32":
        import msvcrt

        handle.seek(_WIN_LOCK_OFFSET)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


class LockTimeout(OSError):
    """Another process held a short lock for longer than anyone should."""


@contextlib.contextmanager
def held(path: Path, timeout: float = 30.0) -> Iterator[None]:
    """Hold the lock on `path` (created owner-only) for the block, waiting up to `timeout`.

    Polls rather than blocks, so the wait is bounded on every platform (msvcrt's own
    blocking mode gives up after 10 s). Raises LockTimeout naming the file.
    """
    with open(path, "a+b", opener=private_opener) as handle:
        deadline = time.monotonic() + timeout
        pause = 0.001
        while not try_lock(handle):
            if time.monotonic() > deadline:
                raise LockTimeout(f"another semlith process has held {str(path)!r} for over "
                                  f"{timeout:.0f} s; try again")
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
        try:
            yield
        finally:
            unlock(handle)
