"""What a call can name that is not the corpus's (issue #22): whatever an import from
outside binds, a language's builtins, a literal's methods, an object a class from outside
made. Such a call is no edge, rather than an ambiguous one."""

from __future__ import annotations

import re
from collections.abc import Callable

from semlith.graph.rules import rules
from semlith.ingest.graph.records import Local, LocalKind

_LITERAL = re.compile(r"""(?i:[rbuf]{0,2})["'`]|[\[{]""")


class Outside(Exception):
    """The name is bound to something outside the corpus: no edge."""


def is_literal(receiver: str, lang: str) -> bool:
    """A literal as the receiver (`"".join`, `{...}.get`, `[].slice`) in a language
    whose literals have methods: its methods are the language's."""
    return rules(lang).literal_receivers and _LITERAL.match(receiver) is not None


def made_outside(local: Local, lang: str, value: Callable[[str], object]) -> bool:
    """Whether a binding whose type the corpus does not define holds something from
    outside it: a declared type, a literal, a builtin class's call (`dict(...)`), an
    alias of a name from outside, or (Python) a class an import from outside made
    (`_cv = ContextVar(...)`, `self._pool = httpcore.ConnectionPool(...)`); `value`
    looks a name up in the file and raises Outside for such an import."""
    if local.kind is LocalKind.ALIAS:  # an alias of something outside (`h = hashlib.md5`)
        return _raises(value, local.type_name)
    if local.kind is not LocalKind.CALL:
        return True
    if local.type_name in rules(lang).builtin_types:
        return True  # `d = dict(...)`, `names = list(...)`: the language's own
    if not rules(lang).foreign_classes or \
            not local.type_name.rsplit(".", 1)[-1][:1].isupper():
        return False  # a function's result may be anything (`copy.copy(self)`)
    return _raises(value, local.type_name)


def _raises(value: Callable[[str], object], name: str) -> bool:
    try:
        value(name)
    except Outside:
        return True
    return False
