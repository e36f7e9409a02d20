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
side is `Query.file_words`, read once with the rest of the question).
"""

from __future__ import annotations

import functools
import math

from semlith.ranking.context import Context, Scores
from semlith.text import doer, path_words


@functools.lru_cache(maxsize=65536)
def name_words(path: str) -> frozenset[str]:
    """Stemmed words of a file's name and of its parent folder's name, no extension."""
    near = "/".join(path.split("/")[-2:])
    words = path_words(near.rsplit(".", 1)[0] if "." in near.rsplit("/", 1)[-1] else near)
    return frozenset(doer(w) for w in words)


def apply(scores: Scores, ctx: Context) -> Scores:
    words = ctx.query.file_words
    if not ctx.weights.path or not words or not scores:
        return scores
    files = {rec.path: name_words(rec.path) for cid in scores
             if (rec := ctx.records.get(cid)) is not None}
    n = len(files)
    if not n:
        return scores
    held = {w: sum(w in named for named in files.values()) for w in words}
    # log(1 + n/df) / log(1 + n): 1 for a word one file holds, near 0 for one all hold.
    weight = {w: math.log(1 + n / df) / math.log(1 + n) for w, df in held.items() if df}
    gain = {path: sum(weight.get(w, 0.0) for w in words & named) / len(words)
            for path, named in files.items()}
    unit = ctx.weights.path * max(scores.values())
    return {cid: score + unit * gain[rec.path] if (rec := ctx.records.get(cid)) else score
            for cid, score in scores.items()}
