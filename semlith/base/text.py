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


def doer(word: str) -> str:
    """A stem and the noun of its doer meet: `reader` and `reads` are both `read`,
    `Writers/` and `writes` both `writ`, `parser` and `parsing` both `pars`,
    `formatter` and `format` both `format`. A final `er` (on stems of six letters or
    more), then a final `e` or a doubled final consonant, are dropped."""
    if len(word) >= 6 and word.endswith("er"):
        word = word[:-2]
    doubled = word[-1:] == word[-2:-1] and word[-1:] not in ("a", "e", "i", "o", "u")
    if len(word) > 3 and (word.endswith("e") or doubled):
        word = word[:-1]
    return word


def name_parts(word: str) -> list[str]:
    """A word's camelCase parts, and the word itself when every part is under three
    letters (`LaTeX`, `TeX`): file-name words leave such parts out, which left those
    names no word at all."""
    parts = CAMEL.findall(word)
    if len(word) >= 3 and len(parts) > 1 and all(len(p) < 3 for p in parts):
        return [*parts, word]
    return parts


@functools.lru_cache(maxsize=65536)
def path_words(path: str) -> frozenset[str]:
    """Stemmed words of a path ("auth/SessionTokens.go" -> auth, session, token;
    "Writers/LaTeX.hs" -> writer, latex)."""
    return frozenset(stem(w.lower()) for part in re.split(r"[/._\\-]+", path)
                     for w in name_parts(part) if len(w) >= 3)
