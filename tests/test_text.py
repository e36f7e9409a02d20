"""The word helpers of base/text.py: the one place a question, a path or a chunk is read
into words, identifiers and identifier parts (issue #44 gathered them here)."""

from __future__ import annotations

from semlith.base.text import (
    CAMEL,
    IDENTIFIER,
    identifiers,
    index_tokens,
    keyword_terms,
    keyword_words,
    name_parts,
    path_words,
    split_identifiers,
    split_name,
    words,
)


def test_identifier_parts() -> None:
    assert CAMEL.findall("parseHTTPResponse") == ["parse", "HTTP", "Response"]
    assert CAMEL.findall("utf8Decoder2") == ["utf", "8", "Decoder", "2"]
    assert name_parts("LaTeX") == ["La", "Te", "X", "LaTeX"]  # all parts short: kept whole


def test_identifiers_are_split_for_the_keyword_index() -> None:
    assert split_identifiers("parseHTTPResponse(max_retry_count)") == \
        "parse http response max retry count"
    assert split_identifiers("plain words only") == ""
    # Each identifier once; two-letter ones and non-ASCII letters are not identifiers here.
    assert split_identifiers("getX getX ab_c naïveThing") == "get x ab c ve thing"


def test_the_four_readers_differ_as_documented() -> None:
    text = "Parse_args café über2 HTTPAdapter"
    assert words(text) == ["Parse", "args", "caf", "ber2", "HTTPAdapter"]  # ASCII runs
    assert keyword_words(text + " parse_ARGS") == ["parse_args", "café", "über2", "httpadapter"]
    assert index_tokens("parse_args") == ["parse", "args"]  # `_` splits, as in the index
    assert index_tokens("café") == ["café"]
    assert [i.text for i in identifiers(text)] == ["Parse_args", "HTTPAdapter"]


def test_keyword_terms_drop_stopwords_unless_nothing_is_left() -> None:
    assert keyword_terms("how does retry backoff work") == ('"retry"', '"backoff"', '"work"')
    assert keyword_terms("how is it") == ('"how"', '"is"', '"it"')
    assert keyword_terms('NEAR("a") * -b') == ('"near"', '"b"')  # FTS5 syntax is inert
    assert keyword_terms("?!") == ()


def test_identifiers_in_queries() -> None:
    assert [i.text for i in identifiers("how does parse_args handle HTTPException")] == \
        ["parse_args", "HTTPException"]
    assert identifiers("Rack::Builder")[0].name == "Builder"
    assert identifiers("Rack::Builder")[0].qualifier == "Rack"
    assert identifiers("$foo->bar_baz")[0].qualifier == "$foo"
    assert [i.name for i in identifiers("Builder")] == ["Builder"]  # a single word counts
    assert identifiers("how are routes registered") == []


def test_abbreviations_are_not_qualified_names() -> None:
    # "e.g." read as `g` in `e` put a test's fixture `g` first for an issue about
    # blueprints (the symbol list's head outweighs the others: benchmarks/issues.py).
    asked = "fail if a Blueprint is given an empty name (e.g. #4944), i.e. a.k.a. np.sum"
    assert [i.text for i in identifiers(asked)] == ["np.sum"]
    assert identifiers("e.g")[0].qualifier == "e"  # a single word is taken as typed


def test_qualified_names() -> None:
    assert split_name(" Type::method ") == ["Type", "method"]
    assert split_name("a.b#c->d") == ["a", "b", "c", "d"]
    assert split_name("::x..y") == ["x", "y"]  # empty parts left out
    assert IDENTIFIER.fullmatch("Rack::Builder") is not None
    assert IDENTIFIER.fullmatch(".semlith/store.db") is None


def test_path_words() -> None:
    assert path_words("auth/SessionTokens.go") == {"auth", "session", "token"}
    assert path_words("Writers/LaTeX.hs") == {"writer", "latex"}
