"""Query words in a file's name: a file named for what the question asks about is likely
its answer (`rails/rack.rb` for "rack integration", `Query/Builder.php` for "database
query builder").

Every candidate chunk of a file gains `path` times the best candidate's score, times the
share of the query's words that the file's name or its folder's name holds. Each word
counts by how few of the candidates' files hold it: a word every file has (`http` in an
HTTP client, `java` in a Java tree) says nothing, a word one file has says a lot. Only
the file's own name and its parent folder count: words from higher up the tree name
whole subsystems and matched most files (measured: docs/performance.md, "Ranking").
Both sides are Snowball-stemmed, so `dependency` meets `dependencies/`; a doer meets its
verb (`Readers/` and "reads", `text.doer`), and the question's camelCase words count in
their parts as the file's do (`toString` meets `ToStringBuilder.java`; the question's
side is `Query.file_words`, read once with the rest of the question). Names abbreviate:
one stem that begins the other meets it when both have four letters or more
(`Config.hs` and "configuration", `auth/` and "authentication").

Only files the question may want gain: the source, and the roles it names. A test or a
doc is named for what it tests or documents (`test_user_error_handler.py` for "error
handlers"), so its name matched as well as the source's did, and the gain — up to twice
the best score — outweighed its prior: it took the first slot from the source. Measured
on whole packages, 0.8659 -> 0.8692 NDCG@10 (docs/performance.md, "Ranking").
"""

from __future__ import annotations

import functools
import math

from semlith.base.roles import file_role
from semlith.base.text import doer, path_words
from semlith.ranking.context import Context, Scores

# A question word and a file-name word of at least this many letters meet when one
# begins with the other. At 4 all three shapes of the development set gained in both
# halves; 5 and 6 gained less (docs/performance.md, "Ranking").
PREFIX = 4


@functools.lru_cache(maxsize=65536)
def name_words(path: str) -> frozenset[str]:
    """Stemmed words of a file's name and of its parent folder's name, no extension."""
    near = "/".join(path.split("/")[-2:])
    words = path_words(near.rsplit(".", 1)[0] if "." in near.rsplit("/", 1)[-1] else near)
    return frozenset(doer(w) for w in words)


def _heads(word: str) -> frozenset[str]:
    """Every start of PREFIX letters or more of `word` (the word too, when that long)."""
    return frozenset(word[:i] for i in range(PREFIX, len(word) + 1))


# ~1.3 KB an entry (laravel's `Queue/Connectors/DatabaseConnector.php`): 4,096 paths,
# some forty queries' candidate files, stay near 5 MB in a daemon that runs for days.
@functools.lru_cache(maxsize=4096)
def _starts(path: str) -> frozenset[str]:
    """The heads of the file's name words."""
    return frozenset().union(*map(_heads, name_words(path)))


def _meets(words: frozenset[str], heads: dict[str, frozenset[str]], path: str
           ) -> frozenset[str]:
    """The question's words a file's name holds: the same stem, or one stem the start of
    the other when both have PREFIX letters or more (`Config.hs` for "configuration",
    `auth/` for "authentication", `impl` for "implementation"). `heads`: each word's
    `_heads`."""
    named, starts = name_words(path), _starts(path)
    return frozenset(w for w in words if w in named or w in starts
                     or not heads[w].isdisjoint(named))


def apply(scores: Scores, ctx: Context) -> Scores:
    words = ctx.query.file_words
    if not ctx.weights.path or not words or not scores:
        return scores
    # Per candidate file, the question's words its name holds.
    heads = {w: _heads(w) for w in words}
    named_files = {rec.path for cid in scores if (rec := ctx.records.get(cid)) is not None}
    files = {path: _meets(words, heads, path) for path in named_files}
    n = len(files)
    if not n:
        return scores
    held = {w: sum(w in matched for matched in files.values()) for w in words}
    # log(1 + n/df) / log(1 + n): 1 for a word one file holds, near 0 for one all hold.
    weight = {w: math.log(1 + n / df) / math.log(1 + n) for w, df in held.items() if df}
    gain = {path: sum(weight.get(w, 0.0) for w in matched) / len(words)
            if ctx.query.wants(file_role(path)) else 0.0 for path, matched in files.items()}
    unit = ctx.weights.path * max(scores.values())
    return {cid: score + unit * gain[rec.path] if (rec := ctx.records.get(cid)) else score
            for cid, score in scores.items()}
