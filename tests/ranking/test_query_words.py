"""What `analyse` reads from a question, pinned word for word (issue #44: the word helpers
moved to one home, base/text.py, and every field below had to stay as it was)."""

from __future__ import annotations

import pytest

from semlith.ranking.query import QueryKind, analyse
from semlith.store.catalog import fts_query
from semlith.store.keywords import keyword_query, prune

# (question, words, identifiers as (name, qualifier, text), kind, terms, split, file words)
PINNED = [
    ("how does retry backoff work", ("retry", "backoff", "work"), [], QueryKind.PHRASE,
     ('"retry"', '"backoff"', '"work"'), "", {"work", "backof", "retri"}),
    ("where does HTTPAdapter retry", ("httpadapter", "retry"),
     [("HTTPAdapter", "", "HTTPAdapter")], QueryKind.MIXED, ('"httpadapter"', '"retry"'),
     "http adapter", {"adapt", "retri", "http"}),
    ("Session.send", ("session", "send"), [("send", "Session", "Session.send")],
     QueryKind.IDENTIFIER, ('"session"', '"send"'), "", {"send", "session"}),
    ("parse_args", ("parse", "args"), [("parse_args", "", "parse_args")],
     QueryKind.IDENTIFIER, ('"parse_args"',), "parse args", {"arg", "pars"}),
    ("Rack::Builder call", ("rack", "builder", "call"), [("Builder", "Rack", "Rack::Builder")],
     QueryKind.MIXED, ('"rack"', '"builder"', '"call"'), "", {"rack", "build", "cal"}),
    ("what is it", ("what", "is", "it"), [], QueryKind.PHRASE, ('"what"', '"is"', '"it"'), "",
     {"is", "it", "what"}),
    # ASCII words for the signals, any script for the keyword terms
    ("café naïve_thing über", ("caf", "na", "ve", "thing", "ber"),
     [("naïve_thing", "", "naïve_thing")], QueryKind.MIXED,
     ('"café"', '"naïve_thing"', '"über"'), "ve thing", {"na", "ber", "thing", "caf", "ve"}),
    ("the v1 api of LaTeX writers", ("v1", "api", "latex", "writers"),
     [("LaTeX", "", "LaTeX")], QueryKind.MIXED, ('"v1"', '"api"', '"latex"', '"writers"'),
     "la te x", {"te", "v", "la", "x", "api", "writ", "1", "latex"}),
    ("x", ("x",), [("x", "", "x")], QueryKind.IDENTIFIER, ('"x"',), "", {"x"}),
    ("toString()  $foo->bar_baz #x", ("tostring", "foo", "bar", "baz", "x"),
     [("toString", "", "toString"), ("bar_baz", "$foo", "$foo->bar_baz")], QueryKind.MIXED,
     ('"tostring"', '"foo"', '"bar_baz"', '"x"'), "to string bar baz",
     {"baz", "x", "bar", "foo", "string"}),
]


@pytest.mark.parametrize(("text", "words", "idents", "kind", "terms", "split", "file_words"),
                         PINNED, ids=[p[0] or "empty" for p in PINNED])
def test_a_question_reads_as_pinned(text: str, words: tuple[str, ...],
                                    idents: list[tuple[str, str, str]], kind: QueryKind,
                                    terms: tuple[str, ...], split: str,
                                    file_words: set[str]) -> None:
    query = analyse(text)
    assert query.words == words
    assert [(i.name, i.qualifier, i.text) for i in query.identifiers] == idents
    assert query.kind is kind
    assert query.terms == terms
    assert query.split == split
    assert query.file_words == file_words


def test_a_question_without_words_has_no_keyword_query() -> None:
    query = analyse("?? -- !!")
    assert query.words == () and query.identifiers == ()
    assert prune(query.terms) == "" and fts_query(query.text) == ""


def test_keyword_queries_quote_every_word_once() -> None:
    assert fts_query('Retry "retry" NEAR(a b) naïve_x*') == \
        '"retry" OR "near" OR "a" OR "b" OR "naïve_x"'
    assert keyword_query("how is it") == '"how" OR "is" OR "it"'  # all stopwords: all kept
    # A quoted word of several index tokens (`parse_args`: parse, args) is as rare as its
    # rarest token.
    counts = {"parse": 90, "args": 10, "retry": 80}.get
    assert keyword_query("parse_args retry", lambda ws: {w: counts(w) or 0 for w in ws},
                         total=100) == '"parse_args"'
