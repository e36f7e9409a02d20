"""Search filters become SQL over files: globs anywhere, extensions, languages, `!`."""

from __future__ import annotations

import sqlite3

import pytest

from semlith.base.text import path_words, stem
from semlith.store.keywords import keyword_query
from semlith.store.query import Selection
from semlith.types import Filters

PATHS = ["src/app.py", "src/util/helpers.py", "tests/test_app.py", "docs/index.md",
         "lib/src/deep.rs", "README.md", "web/src/main.ts"]


def select(filters: Filters) -> list[str]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE files (path TEXT, ext TEXT, lang TEXT)")
    langs = {".py": "python", ".md": "markdown", ".rs": "rust", ".ts": "typescript"}
    for p in PATHS:
        ext = "." + p.rsplit(".", 1)[1]
        db.execute("INSERT INTO files VALUES (?, ?, ?)", (p, ext, langs[ext]))
    sel = Selection.of(filters)
    where, params = sel.where, sel.params
    return sorted(r[0] for r in db.execute(f"SELECT path FROM files f WHERE {where}", params))


def test_relative_glob_matches_anywhere() -> None:
    assert select(Filters(paths=("src/*.py",))) == ["src/app.py", "src/util/helpers.py"]
    assert select(Filters(paths=("src",))) == ["lib/src/deep.rs", "src/app.py",
                                               "src/util/helpers.py", "web/src/main.ts"]


def test_anchored_glob_matches_from_the_root() -> None:
    assert select(Filters(paths=("/src",))) == ["src/app.py", "src/util/helpers.py"]


def test_exclusions_and_extensions_and_languages() -> None:
    assert select(Filters(paths=("!tests",), exts=("py",))) == ["src/app.py",
                                                                "src/util/helpers.py"]
    assert select(Filters(langs=("md",))) == ["README.md", "docs/index.md"]
    assert select(Filters(langs=("!python", "!markdown"))) == ["lib/src/deep.rs",
                                                               "web/src/main.ts"]
    assert select(Filters(exts=(".RS", "ts"))) == ["lib/src/deep.rs", "web/src/main.ts"]


def test_unknown_language_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"known: .*python"):
        Selection.of(Filters(langs=("klingon",)))


def test_no_filters_selects_everything() -> None:
    assert not Filters()
    assert len(select(Filters())) == len(PATHS)


def test_keyword_query_drops_stopwords_but_never_everything() -> None:
    assert keyword_query("how does retry backoff work") == '"retry" OR "backoff" OR "work"'
    assert keyword_query("how is it") == '"how" OR "is" OR "it"'


def test_a_word_whose_stem_is_in_most_chunks_is_dropped() -> None:
    """The index holds Porter stems: `retries` is counted as `retri`."""
    def counts(terms: list[str]) -> dict[str, int]:
        return {t: 90 if t == "retri" else 1 for t in terms}

    assert keyword_query("retries timeout", counts, total=100) == '"timeout"'
    assert keyword_query("retries timeout", counts, total=1000) == '"retries" OR "timeout"'


def test_query_words_and_path_words_meet_at_their_stems() -> None:
    assert stem("dependency") == stem("dependencies") == "depend"
    assert stem("routing") in path_words("app/routes.py")
    assert stem("dependency") in path_words("fastapi/dependencies/utils.py")
