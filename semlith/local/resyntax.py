"""Python `re` syntax as RE2's, for grep's linear-time engine (issue #47).

`search --regex` takes Python's syntax, as its help says, but runs on RE2 (the
`google-re2` wheel), which matches in time linear in the text: no pattern can backtrack
for seconds. The pattern is parsed by Python's own parser, so what `re` rejects is
rejected with `re`'s words, and every part is written out again in RE2's syntax with
Python's meaning: `\\w`, `\\d` and `\\s` are Unicode classes as in `re` (RE2's own are
ASCII), `^`/`$`/`\\A`/`\\Z` are the line's ends (grep matches one line at a time), and
the flags `(?i)`/`(?a)` keep their scope. What RE2 cannot run (backreferences,
lookaround, possessive and atomic forms) is refused in one sentence naming it. One
difference remains: `\\b` and `\\B` are ASCII word boundaries (RE2 has no other).
"""

from __future__ import annotations

import importlib
import re
from typing import Any

# sre_parse warns on import in 3.11 (filterwarnings = error); its new home is private.
_parser: Any = importlib.import_module("re._parser")

MAX_COUNT = 1000  # RE2's largest repeat count ({n,m})

# Python's `\s` for text: str.isspace() (tests/local/test_resyntax.py checks every code
# point); `\d` is Unicode decimal digits (Nd), `\w` letters, numbers and the underscore.
_SPACE = [(0x09, 0x0D), (0x1C, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680),
          (0x2000, 0x200A), (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F),
          (0x3000, 0x3000)]
_ASCII_SPACE = [(0x09, 0x0D), (0x20, 0x20)]
_ASCII_DIGIT = [(0x30, 0x39)]
_ASCII_WORD = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
_TOP = 0x10FFFF

_REFUSED = {
    "GROUPREF": "a backreference (\\1, (?P=name))",
    "GROUPREF_EXISTS": "a conditional group ((?(1)...))",
    "ASSERT": "a lookahead or lookbehind ((?=...), (?<=...))",
    "ASSERT_NOT": "a negative lookahead or lookbehind ((?!...), (?<!...))",
    "POSSESSIVE_REPEAT": "a possessive quantifier (*+, ++, ?+)",
    "ATOMIC_GROUP": "an atomic group ((?>...))",
}


class Unsupported(ValueError):
    """A valid Python regex using a part RE2 cannot run; the message names the part."""


def to_re2(pattern: str) -> str:
    """`pattern` (Python `re` syntax) in RE2's syntax with Python's meaning, for matching
    one line at a time (compile it with RE2's `never_nl`).

    Raises:
        re.error: `pattern` is not a valid Python regex.
        Unsupported: it uses a part RE2 cannot run (the message names it).
    """
    parsed = _parser.parse(pattern)
    flags = parsed.state.flags
    body = _Writer(ascii=bool(flags & re.ASCII)).sequence(parsed)
    return ("(?i)" if flags & re.IGNORECASE else "") + body


class _Writer:
    def __init__(self, *, ascii: bool) -> None:
        self.ascii = ascii

    def sequence(self, items: Any) -> str:
        return "".join(self.item(op, av) for op, av in items)

    def item(self, op: Any, av: Any) -> str:
        name = str(op)
        if name in _REFUSED:
            raise Unsupported(_REFUSED[name])
        if name == "LITERAL":
            return _char(av)
        if name == "NOT_LITERAL":
            return f"[^{_char(av)}]"
        if name == "ANY":
            return "."  # never_nl: not the line's end, with or without (?s)
        if name == "IN":
            return self.klass(av)
        if name == "BRANCH":
            return "(?:" + "|".join(self.sequence(p) for p in av[1]) + ")"
        if name == "SUBPATTERN":
            return self.group(*av)
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            return self.repeat(*av, lazy=name == "MIN_REPEAT")
        if name == "AT":
            return _AT[str(av)]
        if name == "CATEGORY":
            return self.klass([(op, av)])
        raise Unsupported(f"the construct {name.lower()}")

    def group(self, _number: Any, add: int, remove: int, body: Any) -> str:
        """A group, capturing or not (only where the whole match is matters), with its
        scoped flags: (?i:...) and (?-i:...) as RE2 has them, (?a:...) as its classes."""
        saved = self.ascii
        self.ascii = bool(add & re.ASCII) or (saved and not remove & re.ASCII)
        try:
            inner = self.sequence(body)
        finally:
            self.ascii = saved
        case = ("i" if add & re.IGNORECASE else "") + ("-i" if remove & re.IGNORECASE else "")
        return f"(?{case}:{inner})"

    def repeat(self, low: int, high: Any, body: Any, *, lazy: bool) -> str:
        unbounded = high == _parser.MAXREPEAT
        if low > MAX_COUNT or (not unbounded and high > MAX_COUNT):
            raise Unsupported(f"a repeat count over {MAX_COUNT}")
        if (low, unbounded) == (0, True):
            suffix = "*"
        elif (low, unbounded) == (1, True):
            suffix = "+"
        elif (low, high) == (0, 1):
            suffix = "?"
        else:
            suffix = f"{{{low},}}" if unbounded else \
                f"{{{low}}}" if low == high else f"{{{low},{high}}}"
        return f"(?:{self.sequence(body)}){suffix}{'?' if lazy else ''}"

    def klass(self, items: list[Any]) -> str:
        """A character class. Python's negated categories (\\W, \\D, \\S) are not RE2
        class members: inside a class they become alternatives, and in a negated class
        they are subtracted where their characters are listed (`[^\\S\\n]`); a negated
        Unicode \\W or \\D with other members (`[^\\W\\d]`) is refused."""
        negate = bool(items) and str(items[0][0]) == "NEGATE"
        members: list[str] = []
        listed: list[tuple[int, int]] | None = []  # the members' ranges, while known
        outside: list[list[tuple[int, int]] | None] = []  # negated categories' ranges
        spelled: list[str] = []  # ... and as classes of their own
        for op, av in items[1:] if negate else items:
            name = str(op)
            if name not in ("LITERAL", "RANGE", "CATEGORY"):
                raise Unsupported(f"the class member {name.lower()}")
            if name != "CATEGORY":
                bounds = (av, av) if name == "LITERAL" else av
                members.append(_span(bounds))
                listed = None if listed is None else [*listed, bounds]
                continue
            text, ranges = self.category(str(av))
            if "NOT_" in str(av):
                outside.append(ranges)
                spelled.append(f"[^{text}]")
            else:
                members.append(text)
                listed = None if listed is None or ranges is None else [*listed, *ranges]
        inside = "".join(members)
        if not negate:
            alternatives = ([f"[{inside}]"] if inside else []) + spelled
            if not alternatives:
                return _NOTHING
            return alternatives[0] if len(alternatives) == 1 else \
                "(?:" + "|".join(alternatives) + ")"
        if not outside:
            return f"[^{inside}]"
        known = outside[0]
        if len(outside) > 1 or known is None or listed is None:
            if len(outside) == 1 and not members:
                return spelled[0].replace("[^", "[", 1)
            raise Unsupported("a negated class holding \\W or \\D and more (like "
                              "[^\\W\\d])")
        kept = _minus(known, listed)
        return "[" + "".join(_span(r) for r in kept) + "]" if kept else _NOTHING

    def category(self, name: str) -> tuple[str, list[tuple[int, int]] | None]:
        """The class members of \\d \\w \\s (negated or not: the positive set), and
        their ranges where they are listed rather than Unicode properties."""
        kind = name.removeprefix("CATEGORY_").removeprefix("NOT_")
        if self.ascii or kind == "SPACE":
            ranges = {"DIGIT": _ASCII_DIGIT, "WORD": _ASCII_WORD,
                      "SPACE": _ASCII_SPACE if self.ascii else _SPACE}[kind]
            return "".join(_span(r) for r in ranges), ranges
        return {"DIGIT": "\\p{Nd}", "WORD": "\\p{L}\\p{N}_"}[kind], None


_NOTHING = f"[^\\x00-\\x{{{_TOP:X}}}]"  # an empty class: matches nothing


def _minus(keep: list[tuple[int, int]], drop: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The code points of the ranges `keep` that no range of `drop` holds."""
    out = []
    for low, high in keep:
        pieces = [(low, high)]
        for d_low, d_high in drop:
            pieces = [part for a, b in pieces for part in ((a, min(b, d_low - 1)),
                                                           (max(a, d_high + 1), b))
                      if part[0] <= part[1]]
        out += pieces
    return out


_AT = {"AT_BEGINNING": "^", "AT_BEGINNING_STRING": "^", "AT_END": "$",
       "AT_END_STRING": "$", "AT_BOUNDARY": "\\b", "AT_NON_BOUNDARY": "\\B"}


def _char(code: int) -> str:
    """One character, escaped unless it is a letter, a digit or the underscore."""
    char = chr(code)
    if char.isascii() and (char.isalnum() or char == "_"):
        return char
    return f"\\x{{{code:X}}}"


def _span(bounds: tuple[int, int]) -> str:
    low, high = bounds
    return _char(low) if low == high else f"{_char(low)}-{_char(high)}"
