"""One `.gitignore` pattern -> a Python regex with git's meaning that matches in linear time.

Why not a glob library: pathspec (our matcher until issue #26) translates ``*`` to
``[^/]*`` and leaves the rest to `re`, which backtracks: ``*a*a*a*a*a*a*a*a*a*a*a*b``
against a name of 200 ``a``s tries every way to split the name between the stars, holding
the GIL, so the walk, the watcher and signal handling all stopped. git and ripgrep match
such a pattern in linear time. So do these regexes, by never leaving `re` a choice that
matters (Python 3.11's atomic groups ``(?>...)`` and possessive ``*+`` make that expressible):

- Within one path segment a glob ``S0*S1*...*Sk`` (each Si a fixed-length run of literals,
  ``?`` and classes) matches iff S0 is a prefix, Sk a suffix and S1..Sk-1 occur in order
  in between. Taking each middle Si at its leftmost occurrence is always optimal (it
  leaves the most room for the rest), so ``S0(?>[^/]*?S1)...(?>[^/]*?Sk-1)[^/]*Sk`` means
  the same, and an atomic group, once matched, is never re-entered: each Si costs one
  scan, the last one a scan back from the segment's end.
- A ``**`` between slashes is zero or more whole folders. It splits the pattern into
  blocks of segments; a block matches a fixed number of whole segments, so again its
  leftmost place is optimal: ``(?>(?:[^/]*+/)*?BLOCK)``. Only the last block, which must
  end the path, is searched without committing, one start per segment.

So a pattern of m tokens costs O(m x path length) at worst, with no exponential term.

The meaning is git 2.39's, byte for byte (dir.c's parse_path_pattern, match_basename and
match_pathname; wildmatch.c): patterns and paths are UTF-8 bytes, as git compares them,
so ``?`` matches one byte and ``[[:alpha:]]`` only ASCII letters. A pattern without a
slash (a trailing one aside) matches the last segment at any depth; otherwise it is
anchored to the ignore file's folder. A ``**`` right after the leading run of literals
counts as following a slash, as in git (``ab**/c`` matches ``abX/Y/c``), and ``**\\/``
needs at least one folder (``**/`` does not). A pattern git can never match (an unclosed
``[``, an unknown ``[:class:]``, a trailing backslash, ``a//``) compiles to None.

Each regex is applied with ``search`` to the path relative to the ignore file's folder,
with a trailing "/" for a folder, and matches that path itself only (not a path below it).
"""

from __future__ import annotations

import re
from enum import Enum

# An ignore rule: (regex for the path relative to the ignore file's folder, ignores it);
# a negation ("!pattern") does not ignore.
Rule = tuple[re.Pattern[bytes], bool]

_STAR, _QUESTION, _BRACKET, _CLOSE, _BACKSLASH, _SLASH, _DASH, _COLON = b"*?[]\\/-:"
_GLOB_SPECIAL = b"*?[\\"  # git's simple_length counts the literals before the first of these
_NOT_SLASH = frozenset(range(256)) - {_SLASH}
_ASCII = range(128)
_PRINT = frozenset(range(0x20, 0x7F))
# wildmatch.c's [:name:] classes: git's own ctype, ASCII only (checked against git 2.39).
_CLASSES: dict[bytes, frozenset[int]] = {
    b"alnum": frozenset(c for c in _ASCII if chr(c).isalnum()),
    b"alpha": frozenset(c for c in _ASCII if chr(c).isalpha()),
    b"blank": frozenset(b" \t"),
    b"cntrl": frozenset([*range(0x20), 0x7F]),
    b"digit": frozenset(b"0123456789"),
    b"graph": _PRINT - {0x20},
    b"lower": frozenset(c for c in _ASCII if chr(c).islower()),
    b"print": _PRINT,
    b"punct": frozenset(c for c in _PRINT if not chr(c).isalnum() and c != 0x20),
    b"space": frozenset(b" \t\n\r"),  # git's isspace: not \v or \f
    b"upper": frozenset(c for c in _ASCII if chr(c).isupper()),
    b"xdigit": frozenset(b"0123456789abcdefABCDEF"),
}


class _Tok(Enum):
    STAR = "*"  # any bytes within one segment
    SLASH = "/"
    DIRS = "**/"  # zero or more whole folders (the slash included)
    SOME_DIRS = "**\\/"  # one or more: git's ** before an escaped slash
    REST = "**"  # everything to the end, slashes included


# One byte's regex (a literal or a class), or a token that is not a single byte.
_Token = bytes | _Tok
_CROSSING = {
    _Tok.DIRS: rb"(?:[^/]*+/)*?",
    _Tok.SOME_DIRS: rb"(?:[^/]*+/)+?",
    _Tok.REST: rb".*",
}
# Whole segments that are not the last, skipped in one possessive pass: a pattern without a
# slash matches the last segment ("(?=[^/])" keeps a folder's trailing "/" out of it).
_LAST_SEGMENT = rb"\A(?:[^/]*+/(?=[^/]))*+"


def compile_rule(pattern: bytes, casefold: bool = False) -> Rule | None:
    """The rule of one pattern line, as git 2.39 means it.

    Args:
        pattern: the line's bytes with comments, blank lines and trailing spaces already
            dealt with (`ignore.parse_ignore` does that); a leading "!" negates it.
        casefold: match ASCII letters in either case, as git does under
            `core.ignoreCase` (its WM_CASEFOLD folds ASCII only, and so does `re` on bytes).

    Returns:
        (regex, ignores): `regex.search` matches the path relative to the ignore file's
        folder, a folder's with a trailing "/"; `ignores` is False for a negation. None
        when git would never match the line (a lone "!", an unclosed "[", ...).
    """
    ignores = not pattern.startswith(b"!")
    body = pattern if ignores else pattern[1:]
    dir_only = body.endswith(b"/")
    if dir_only:
        body = body[:-1]
    anchored = b"/" in body
    if anchored and body.startswith(b"/"):
        body = body[1:]  # git strips one: "//a" must match a path starting with "/"
    tokens = _tokens(body, anchored, casefold)
    # Nothing, or a last token that consumes a "/": no path ends like that. (A final "**/"
    # can match nothing: git strips one trailing slash, so "b**//" matches the folder b.)
    if not tokens or tokens[-1] in (_Tok.SLASH, _Tok.SOME_DIRS):
        return None
    end = rb"/\Z" if dir_only else rb"/?\Z"
    fold = re.IGNORECASE if casefold else re.NOFLAG
    if not anchored:
        return re.compile(_last_segment(tokens) + end, fold), ignores
    # A match may not end with "/": that is a folder's marker, not part of its path.
    return re.compile(rb"\A" + _blocks(tokens) + rb"(?<!/)" + end, re.DOTALL | fold), ignores


def _last_segment(tokens: list[_Token]) -> bytes:
    """A pattern without a slash, which matches the last segment. Like git's match_basename,
    a fixed-length name and a star before a fixed-length tail have short cuts: searched for
    without `\\A`, they let `re` scan for their literal prefix (2-4x faster on the walk
    benchmark's paths than skipping the segments before the last)."""
    fixed = [token for token in tokens if isinstance(token, bytes)]
    if len(fixed) == len(tokens):  # the whole segment, after a "/" or at the start
        return b"".join(fixed) + b"(?<![^/]" + b"".join(fixed) + b")"
    if tokens[0] is _Tok.STAR and len(fixed) == len(tokens) - 1:
        return b"".join(fixed)  # none of it matches "/": it is within the last segment
    return _LAST_SEGMENT + _segment(tokens)


def _tokens(body: bytes, anchored: bool, casefold: bool = False) -> list[_Token] | None:
    """The pattern as tokens; None if git gives up on it (it then never matches)."""
    # git compares the leading literals itself and hands wildmatch the rest, so a star run
    # right after them starts wildmatch's pattern: it counts as following a slash.
    literal = next((i for i, byte in enumerate(body) if byte in _GLOB_SPECIAL), len(body))
    tokens: list[_Token] = []
    i = 0
    while i < len(body):
        byte = body[i]
        token: _Token | None
        if byte == _STAR:  # i == 0 implies literal == 0, so body[-1] is never read
            token, i = _stars(body, i, anchored and (i == literal or body[i - 1] == _SLASH))
        elif byte == _BACKSLASH:
            token, i = _literal(body[i + 1]) if i + 1 < len(body) else None, i + 2
        elif byte == _BRACKET:
            token, i = _bracket(body, i, casefold)
        else:
            token, i = (rb"[^/]" if byte == _QUESTION else _literal(byte)), i + 1
        if token is None:
            return None
        tokens.append(token)
    return tokens


def _literal(byte: int) -> _Token:
    return _Tok.SLASH if byte == _SLASH else re.escape(bytes([byte]))


def _stars(body: bytes, start: int, after_slash: bool) -> tuple[_Tok, int]:
    """The star run at `start`: a ``**`` that crosses folders, or a `*`; and where next."""
    end = start
    while end < len(body) and body[end] == _STAR:
        end += 1
    if end - start >= 2 and after_slash:
        if end == len(body):
            return _Tok.REST, end
        if body[end] == _SLASH:
            return _Tok.DIRS, end + 1
        if body[end : end + 2] == b"\\/":
            return _Tok.SOME_DIRS, end + 2
    return _Tok.STAR, end


def _bracket(body: bytes, start: int, casefold: bool = False) -> tuple[bytes | None, int]:
    """wildmatch.c's bracket expression at `start` ("["): a regex for the bytes it matches
    (None when git gives up on it or it matches nothing but "/") and the index after it."""
    i = start + 1
    negated = body[i : i + 1] in (b"!", b"^")
    i += negated
    singles: set[int] = set()
    spans: set[int] = set()  # the bytes of its ranges and [:classes:]
    previous = 0  # git's prev_ch: the last single member, 0 after a range or a [:class:]
    first = True  # a "]" first is a member
    while i < len(body) and (first or body[i] != _CLOSE):
        first = False
        member = _member(body, i, previous)
        if member is None:
            return None, i
        found, previous, i = member
        (singles if previous else spans).update(found)
    if i == len(body):
        return None, i  # no closing "]"
    members = singles | spans
    if casefold:
        # wildmatch.c under WM_CASEFOLD lowers the path's byte, then compares it with the
        # members as written, and also tries it upper-cased against ranges and classes:
        # so `[A]` matches nothing and `[!A]` everything. The set is closed under case,
        # so the regex's IGNORECASE leaves it as it is.
        members = {b for b in range(256) if (low := _lower(b)) in members
                   or (0x61 <= low <= 0x7A and low - 32 in spans)}
    allowed = _NOT_SLASH - members if negated else _NOT_SLASH & members
    return (_charset(frozenset(allowed)) if allowed else None), i + 1


def _lower(byte: int) -> int:
    """ASCII tolower, as git's."""
    return byte + 32 if 0x41 <= byte <= 0x5A else byte


def _member(body: bytes, i: int, previous: int) -> tuple[frozenset[int], int, int] | None:
    """The member of a bracket expression at `i`: (its bytes, git's prev_ch after it: the
    byte itself for a single one, 0 after a range or a class; the index after it), or None
    when git gives up."""
    byte = body[i]
    if byte == _BACKSLASH:
        if i + 1 == len(body):
            return None
        return frozenset([body[i + 1]]), body[i + 1], i + 2
    if byte == _DASH and previous and body[i + 1 : i + 2] not in (b"", b"]"):
        high = i + 1 + (body[i + 1] == _BACKSLASH)
        if high == len(body):
            return None
        return frozenset(range(previous, body[high] + 1)), 0, high + 1
    if byte == _BRACKET and body[i + 1 : i + 2] == b":":
        close = body.find(b"]", i + 2)
        if close < 0:
            return None
        if close > i + 2 and body[close - 1] == _COLON:
            named = _CLASSES.get(body[i + 2 : close - 1])
            return None if named is None else (named, 0, close + 1)
        # no ":]" before the "]": this "[" is a member like any other
    return frozenset([byte]), byte, i + 1


def _charset(members: frozenset[int]) -> bytes:
    """A regex class of these bytes, as ranges."""
    ranges: list[list[int]] = []
    for byte in sorted(members):
        if ranges and ranges[-1][1] == byte - 1:
            ranges[-1][1] = byte
        else:
            ranges.append([byte, byte])
    parts = (b"\\x%02x" % low + (b"-\\x%02x" % high if high > low else b"")
             for low, high in ranges)
    return b"[" + b"".join(parts) + b"]"


def _blocks(tokens: list[_Token]) -> bytes:
    """An anchored pattern: the blocks of segments between crossings, each but the last
    committed at its leftmost place."""
    pieces: list[list[_Token]] = [[]]
    crossings: list[_Tok] = []
    for token in tokens:
        if isinstance(token, _Tok) and token in _CROSSING:
            crossings.append(token)
            pieces.append([])
        else:
            pieces[-1].append(token)
    regexes = [b"/".join(map(_segment, _split(piece, _Tok.SLASH))) for piece in pieces]
    if not crossings:
        return regexes[0]
    middle = (b"(?>" + _CROSSING[crossing] + regex + b")"
              for crossing, regex in zip(crossings[:-1], regexes[1:-1], strict=True))
    return (b"(?>" + regexes[0] + b")" + b"".join(middle)
            + _CROSSING[crossings[-1]] + regexes[-1])


def _segment(tokens: list[_Token]) -> bytes:
    """One segment's glob: the fixed-length runs between its stars, the middle ones taken
    at their leftmost occurrence."""
    runs = [b"".join(t for t in run if isinstance(t, bytes)) for run in _split(tokens, _Tok.STAR)]
    if len(runs) == 1:
        return runs[0]
    head, *middle, tail = runs
    searched = b"".join(b"(?>[^/]*?" + run + b")" for run in middle if run)
    return head + searched + (b"[^/]*" + tail if tail else b"[^/]*+")


def _split(tokens: list[_Token], separator: _Tok) -> list[list[_Token]]:
    parts: list[list[_Token]] = [[]]
    for token in tokens:
        if token is separator:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts
