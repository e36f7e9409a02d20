"""The keyword query: user text as FTS5 terms, pruned of words too common to matter.

User text is reduced to quoted words (stopwords dropped, all words when none is left),
so FTS5 syntax in a query is inert. In a store of at least `MIN_DF_CHUNKS` chunks, words
in more than `MAX_DF` of the chunks are dropped too: their idf is near zero, yet bm25
must score every chunk holding them (docs/performance.md, "query").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from semlith.base.text import index_tokens, keyword_terms, stem

MAX_DF = 0.5  # keyword terms in more than this share of the chunks are dropped
# ...in a store of at least this many chunks: in a handful every word of the query is in
# most of them, and a one-page store answered no keyword list at all.
MIN_DF_CHUNKS = 50

DocCounts = Callable[[list[str]], dict[str, int]]


def prune(words: Sequence[str], doc_counts: DocCounts | None = None, total: int = 0) -> str:
    """The FTS5 query of `words` (from `text.keyword_terms`) without those in more than
    MAX_DF of a store's `total` chunks (`doc_counts`: term -> chunks holding it). Empty
    when nothing is left."""
    if doc_counts is None or total < MIN_DF_CHUNKS or not words:
        return " OR ".join(words)
    tokens = {w: index_tokens(w.strip('"').lower()) for w in words}
    # The index holds Porter stems; look a word up as typed and as (Snowball) stemmed,
    # which agree on nearly every word, and take the commoner.
    forms = {t: (t, stem(t)) for parts in tokens.values() for t in parts}
    counts = doc_counts(sorted({f for pair in forms.values() for f in pair}))
    limit = MAX_DF * total

    def count(token: str) -> int:
        return max(counts.get(form, 0) for form in forms[token])

    # A quoted word holding several tokens is a phrase: as rare as its rarest token.
    kept = [w for w, parts in tokens.items() if min(map(count, parts), default=0) <= limit]
    return " OR ".join(kept)


def keyword_query(text: str, doc_counts: DocCounts | None = None, total: int = 0) -> str:
    """The FTS5 query for user text (`text.keyword_terms`, then `prune`)."""
    return prune(keyword_terms(text), doc_counts, total)
