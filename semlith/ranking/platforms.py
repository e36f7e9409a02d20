"""Platform variants: files that implement the same thing for one operating system.

A portable library keeps one implementation per platform (`src/unix/` beside
`src/win/`, Go's `poll_windows.go` beside `poll_unix.go`, Rust's `sys/windows/`, a
`linux.c` and a `sunos.c` beside the shared `core.c`). A question that names no
platform ("how is the event loop run") wants the shared code first and the variants
after it; the variants match its words as well and took the first slots (issue #21: a
platform twin put first is one of the misses left on the repository trees,
docs/performance.md "A learned ranker").

A path names a platform when a folder is an operating system's name or a word of the
file's name is (split at `_`, `-` and `.`: `fs_windows.go`, `random-sysctl-linux.c`),
or a folder is a Kotlin Multiplatform source set of one (`mingwX64Main`, `iosTest`).
Families many systems share (`unix`, `posix`, `bsd`) are portable, not variants. A
question that names a platform ("on Windows", "macOS", "Linux") keeps the files of the
platforms it names as they are (ranking/priors.py applies the factor).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence

# Each system's names in paths and questions -> one name. Names that mean something
# else in code too often (`mac` of MAC addresses, `dos`, `nt`) are left out.
_NAMES: dict[str, str] = {
    **dict.fromkeys(("win", "win32", "win64", "windows", "winnt", "mingw", "cygwin",
                     "msvc"), "windows"),
    **dict.fromkeys(("darwin", "macos", "osx"), "macos"),
    **dict.fromkeys(("ios", "tvos", "watchos"), "ios"),
    "linux": "linux", "android": "android",
    "freebsd": "freebsd", "openbsd": "openbsd", "netbsd": "netbsd",
    **dict.fromkeys(("dragonfly", "dragonflybsd"), "dragonfly"),
    **dict.fromkeys(("sunos", "solaris", "illumos"), "solaris"),
    "aix": "aix", **dict.fromkeys(("os390", "zos"), "zos"),
    **dict.fromkeys(("ibmi", "os400"), "ibmi"),
    "haiku": "haiku", "qnx": "qnx", "fuchsia": "fuchsia", "plan9": "plan9",
    "hurd": "hurd", "wasi": "wasi", "emscripten": "emscripten",
}
_FILE_WORD = re.compile(r"[_.\-]")
# A Kotlin Multiplatform source set is named for its target: `linuxX64Main`,
# `mingwX64Test`, `iosMain`; its first word is the system (`nonAppleMain` is portable).
_SOURCE_SET = re.compile(r"([a-z][a-z0-9]*?)(?:[A-Z][A-Za-z0-9]*)?(?:Main|Test)")
# How questions name them beside the names above ("Mac OS", "z/OS" are two words).
_QUERY_PAIRS = {("mac", "os"): "macos", ("z", "os"): "zos"}


@functools.lru_cache(maxsize=65536)
def platform_of(path: str) -> str | None:
    """The operating system `path` (relative, posix separators) is specific to, or None
    for portable code: the first of its folders, then of its file name's words, that names
    one."""
    *folders, name = path.split("/")
    words = [m.group(1) if (m := _SOURCE_SET.fullmatch(f)) else f.lower() for f in folders]
    return next((_NAMES[w] for w in (*words, *_FILE_WORD.split(name.lower()))
                 if w in _NAMES), None)


def named_platforms(words: Sequence[str]) -> frozenset[str]:
    """The operating systems a question names ("on Windows", "macOS", "Mac OS"), from its
    lower-cased words (`query.analyse`)."""
    named = {_NAMES[w] for w in words if w in _NAMES}
    named.update(_QUERY_PAIRS[pair] for pair in itertools.pairwise(words)
                 if pair in _QUERY_PAIRS)
    return frozenset(named)
