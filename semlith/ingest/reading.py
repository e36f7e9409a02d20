"""A file's bytes, read only while it is what the walk let through: a regular file
within its size limit.

The walk judges a file's type and size from `stat` without opening it. By the time the
file is read — the index run's next step, or a `semlith_read` hours later — it may have
been replaced by a FIFO (a read blocks forever: 45 such reads held every worker thread
of the daemon), a device, or a 3 GB sparse file (read whole: 3.2 GB of memory). So
`read_file` opens without blocking, judges the open file itself (`fstat`, so a rename
in between changes nothing), and never reads past the limit (issue #26).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import xxhash

from semlith.ingest.formats import size_limit

# The largest file the walk lets through (documents have their own caps, formats/): here,
# not in walk.py, so that reading a file (a grep, `read`) does not import the walk and its
# ignore rules (7 ms of a fresh CLI's grep, issue #45).
DEFAULT_MAX_BYTES = 8 << 20

# O_NONBLOCK: opening a FIFO that no one writes returns at once instead of waiting for a
# writer. Windows has no FIFOs on disk and no such flag.
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_KINDS = ((stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "device"),
          (stat.S_ISBLK, "device"), (stat.S_ISDIR, "folder"))


def content_hash(data: bytes) -> str:
    """The hash a file's bytes are recorded under (`files.hash`)."""
    return xxhash.xxh3_128_hexdigest(data)


def limit_for(rel: str, max_bytes: int = DEFAULT_MAX_BYTES) -> int:
    """The largest file the walk lets through at `rel` (documents have their own cap)."""
    return size_limit(rel, max_bytes)


def read_file(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them.

    Raises:
        OSError: it cannot be opened, is not a regular file (`strerror` names what it
            is), or is larger than `limit` (errno EFBIG).
    """
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "special file")
            raise OSError(errno.EINVAL, f"not a regular file ({kind})", str(path))
        if info.st_size > limit:
            raise OSError(errno.EFBIG, f"too large ({info.st_size} bytes)", str(path))
        with os.fdopen(fd, "rb", closefd=True) as file:
            fd = -1
            data = file.read(limit + 1)
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > limit:  # it grew after fstat
        raise OSError(errno.EFBIG, f"too large (over {limit} bytes)", str(path))
    return data
