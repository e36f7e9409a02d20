"""Words of queries, paths and chunks: the one home of the word helpers, shared by the
keyword index, the keyword list, the symbol list and the ranking signals.

Text is read into words by four patterns, each matching what its reader compares with
(they differ on purpose; unifying any two would change what a list finds):

- `words`: runs of ASCII letters and digits (`parse_args` -> parse, args; `café` ->
  caf). A question's words for the ranking signals, which meet path words (`path_words`
  splits at `_` too) and English stems.
- `keyword_words`: runs of word characters in any script, `_` included (`parse_args`
  stays one). Each is one quoted FTS5 term, so `parse_args` is the phrase "parse args".
- `index_tokens`: runs of letters and digits in any script, `_` splits: what the keyword
  index's tokenizer (FTS5 unicode61) makes of a term, to look its counts up.
- `identifiers`: identifier-shaped words, qualified (`Rack::Builder`, `$foo->bar`), for
  the symbol list; `split_identifiers` cuts plain identifiers of three characters or
  more into their `CAMEL` parts for the index's identifier column.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from py_rust_stemmers import SnowballStemmer

# The parts of an identifier: `parseHTTPResponse` -> parse, HTTP, Response.
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_WORD = re.compile(r"[A-Za-z0-9]+")
_KEYWORD = re.compile(r"\w+")
_INDEX_TOKEN = re.compile(r"[^\W_]+")
# An identifier as a question names it: `name`, `Type.method`, `Type::method`,
# `Type#method`, `$obj->field` (the qualified name a definition is looked up by).
IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:(?:::|\.|#|->)[A-Za-z_$][\w$]*)*")
_QUALIFIER = re.compile(r"::|\.|#|->")
# An identifier worth splitting for the keyword index: ASCII, three characters or more.
_SPLITTABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
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


def words(text: str) -> list[str]:
    """The runs of ASCII letters and digits in `text`, as typed (see the module docstring)."""
    return _WORD.findall(text)


def keyword_words(text: str) -> list[str]:
    """The distinct runs of word characters in `text`, lowercased, in order: the words of
    the keyword query (`catalog.fts_query` quotes each)."""
    return list(dict.fromkeys(w.lower() for w in _KEYWORD.findall(text)))


def keyword_terms(text: str) -> tuple[str, ...]:
    """The quoted FTS5 terms of a question's keyword list: its `keyword_words`, stopwords
    dropped (all of them when nothing else is left)."""
    found = keyword_words(text)
    kept = [w for w in found if w not in STOPWORDS] or found
    return tuple(f'"{w}"' for w in kept)


def index_tokens(term: str) -> list[str]:
    """The tokens the keyword index holds for a term (`parse_args` -> parse, args)."""
    return _INDEX_TOKEN.findall(term)


def split_identifiers(text: str) -> str:
    """The parts of camelCase / snake_case identifiers, for the FTS identifier column.

    `parseHTTPResponse` -> "parse http response", `max_retry_count` -> "max retry count".
    Only identifiers that actually split contribute; plain words are in `text` already.
    """
    parts: list[str] = []
    seen: set[str] = set()
    for ident in _SPLITTABLE.findall(text):
        if ident in seen:
            continue
        seen.add(ident)
        pieces = [p.lower() for chunk in ident.split("_") for p in CAMEL.findall(chunk)]
        if len(pieces) > 1:
            parts.append(" ".join(pieces))
    return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Identifier:
    name: str  # the last part: `method` of `Type::method`
    qualifier: str  # the parts before it, joined with ".": `Type`; "" when none
    text: str  # as typed


def identifiers(query: str) -> list[Identifier]:
    """The identifier-shaped words of a query (every word when it is a single one)."""
    single = len(query.split()) == 1
    found = []
    for word in IDENTIFIER.findall(query):
        parts = split_name(word)
        if not single and len(parts) > 1 and all(len(p) == 1 for p in parts):
            continue  # "e.g.", "i.e.", "a.k.a.": an abbreviation, not `e.g` (a name g in e)
        shaped = len(parts) > 1 or "_" in word.strip("_") or _camel(word)
        if shaped or single:
            found.append(Identifier(parts[-1], ".".join(parts[:-1]), word))
    return found


def _camel(word: str) -> bool:
    """fooBar, FooBar, HTTPServer: an inner capital after a letter."""
    return bool(re.search(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]", word))


def split_name(name: str) -> list[str]:
    """A name split at its separators (`Type.method`, `Type::method`, `Type#method`,
    `Type->method`), empty parts left out."""
    return [p for p in _QUALIFIER.split(name.strip()) if p]
