"""Words of queries and paths, shared by the keyword list and the ranking signals."""

from __future__ import annotations

import functools
import re

from py_rust_stemmers import SnowballStemmer

# The parts of an identifier: `parseHTTPResponse` -> parse, HTTP, Response. The same
# pattern splits identifiers for the keyword index (ingest/chunk.py's CAMEL, which a test
# keeps equal to this one: text.py is below ingest/ and cannot import it).
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
STOPWORDS = frozenset("""
    a an and are as at be by does do for from how i in is it of on or that the this to was
    what when where which who why will with""".split())
_STEMMER = SnowballStemmer("english")


def stem(word: str) -> str:
    """The English (Snowball) stem of a lowercase word, for matching query words against
    path words: `dependency` and `dependencies` are both `depend`."""
    stemmed: str = _STEMMER.stem_word(word)
    return stemmed


@functools.lru_cache(maxsize=65536)
def path_words(path: str) -> frozenset[str]:
    """Stemmed words of a path ("auth/SessionTokens.go" -> auth, session, token)."""
    return frozenset(stem(w.lower()) for part in re.split(r"[/._\\-]+", path)
                     for w in CAMEL.findall(part) if len(w) >= 3)
