"""One writer per store: an OS advisory lock on `index.lock`, holder named on refusal.

The lock is `fcntl.flock` on POSIX and `msvcrt.locking` on Windows. The holder writes
its pid, command line and start time into the file so a refused writer can say who
holds it. Readers never take the lock. The OS releases the lock when the holder dies,
even on kill -9, so a stale file never blocks anyone.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import IO, Any

from semlith.base.oslock import try_lock as _try_lock
from semlith.base.oslock import unlock as _unlock
from semlith.base.private import private_opener
from semlith.errors import StoreLocked

LOCK_NAME = "index.lock"
def describe_holder(info: dict[str, Any]) -> str:
    """'pid 123 (semlith index .), started 2026-11-30 09:15:02' from a holder record."""
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(info.get("started", 0))))
    return f"pid {info.get('pid', '?')} ({info.get('command', '?')}), started {started}"


def read_holder(folder: Path) -> dict[str, Any] | None:
    """The holder record in `folder/index.lock`, or None when absent or unreadable."""
    try:
        raw = (folder / LOCK_NAME).read_bytes()[:4096]
        info = json.loads(raw.decode("utf-8", "replace").strip("\x00 \n") or "null")
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) else None


class WriterLock:
    """The writer lock of one store folder. Use `acquire()`, then `release()` (or `with`)."""

    def __init__(self, folder: Path, command: str | None = None) -> None:
        self.folder = folder
        program = Path(sys.argv[0]).name
        if program == "__main__.py":  # `python -m semlith ...`
            program = "semlith"
        self.command = command or " ".join([program, *sys.argv[1:]])
        self._handle: IO[bytes] | None = None

    @property
    def held(self) -> bool:
        return self._handle is not None

    def acquire(self) -> WriterLock:
        """Take the lock at once or raise StoreLocked naming the holder."""
        if self._handle is not None:
            return self
        handle = open(self.folder / LOCK_NAME, "a+b",  # noqa: SIM115 - held until release()
                      opener=private_opener)
        if not _try_lock(handle):
            handle.close()
            info = read_holder(self.folder)
            holder = describe_holder(info) if info else "another process"
            raise StoreLocked(f"store {str(self.folder)!r} is being written by {holder}")
        record = {"pid": os.getpid(), "command": self.command, "started": time.time()}
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps(record).encode())
        handle.flush()
        self._handle = handle
        return self

    def release(self) -> None:
        handle, self._handle = self._handle, None
        if handle is None:
            return
        try:
            handle.seek(0)
            handle.truncate()
            handle.flush()
            _unlock(handle)
        finally:
            handle.close()

    def __enter__(self) -> WriterLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
