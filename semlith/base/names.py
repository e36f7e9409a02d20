"""File names that are not plain text: bytes that are not UTF-8, control characters,
bidirectional controls.

Python gives a name that is not valid UTF-8 with each bad byte as a lone surrogate
(PEP 383); SQLite cannot store such a string, and a newline or tab in a name breaks
line-oriented output. `escape_name` turns both into visible escapes.
"""

from __future__ import annotations

import re

# Lone surrogates (undecodable bytes), C0/C1 controls and DEL, the Unicode line and
# paragraph separators, which terminals and editors also break lines at, and the
# bidirectional controls, which make a name display as another ("Trojan Source",
# CVE-2021-42574: `x\u202eyp.exe` shows as `xexe.py`).
_UNPRINTABLE = re.compile("[\udc80-\udcff\x00-\x1f\x7f-\x9f\u2028\u2029"
                          "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def is_storable(name: str) -> bool:
    """Whether `name` is valid Unicode text (it came from UTF-8 bytes)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def escape_name(name: str) -> str:
    """`name` on one line and storable: a bad byte as `\\xe9`, a newline as `\\n`.

    Idempotent (its output has nothing left to escape). A backslash is left as it is, as
    in most paths, so an escape and a literal backslash-x in a name read alike.
    """
    return _UNPRINTABLE.sub(_escape, name)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
