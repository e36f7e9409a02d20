"""Test code kept in a source file (issue #21, round 10): Rust's `#[cfg(test)] mod tests`
and `#[test]` functions, Zig's `test "..." {}` blocks. Their chunks are of kind `test`, so
that search weighs them as tests although their file is source."""

from __future__ import annotations

import textwrap
from pathlib import Path

from semlith.base.languages import language_of
from semlith.base.settings import Settings
from semlith.ingest.chunk import chunk_file
from semlith.local import LocalLibrary
from semlith.types import Scope
from tests.conftest import HashEmbedder, RecordingFactory

RUST = textwrap.dedent("""\
    /// Parse a header value into its parts.
    pub fn parse_header(value: &str) -> Vec<&str> {
        value.split(';').map(str::trim).collect()
    }

    #[test]
    fn top_level_test() { assert!(parse_header("a").len() == 1); }

    #[cfg(feature = "serde")]
    fn featured() -> u32 { 1 }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        #[should_panic]
        fn parse_header_parses_a_header_value() {
            assert_eq!(parse_header("a; b"), vec!["a", "b"]);
        }

        #[tokio::test]
        async fn parse_header_of_an_empty_header_value() {
            assert!(parse_header("").is_empty());
        }

        fn helper() -> String { String::from("header value") }
    }
    """)


def kinds(text: str, path: str, max_chars: int) -> list[tuple[int, int, str]]:
    chunked = chunk_file(text, language_of(path), max_chars=max_chars)
    return [(c.start_line, c.end_line, c.kind) for c in chunked.chunks]


def test_a_rust_test_module_and_test_functions_are_test_chunks() -> None:
    assert kinds(RUST, "src/header.rs", 120) == [
        (1, 4, "function"),
        (6, 7, "test"),  # `#[test]` on a function of the module
        (9, 10, "function"),  # another `cfg` is not a test
        (12, 14, "test"),  # `#[cfg(test)] mod tests` and all it holds
        (16, 20, "test"),
        (22, 25, "test"),  # `#[tokio::test]`
        (27, 28, "test"),  # a helper inside the test module is test code too
    ]


def test_test_code_and_the_code_it_tests_share_no_chunk() -> None:
    """The whole file is under the budget, and was one chunk: source and tests packed."""
    assert kinds(RUST, "src/header.rs", 800) == [
        (1, 4, "function"), (6, 7, "test"), (9, 10, "function"), (12, 28, "test")]


def test_an_inner_cfg_test_attribute_makes_its_module_or_its_file_test_code() -> None:
    """`#![cfg(test)]` inside a module marks the module; at the top of a file (a file of
    tests whatever its name), every definition in it."""
    module = textwrap.dedent("""\
        pub fn parse(value: &str) -> u32 { value.len() as u32 }

        mod checks {
            #![cfg(test)]
            use super::*;

            fn parse_counts_bytes() { assert_eq!(parse("ab"), 2); }
        }
        """)
    assert kinds(module, "src/lib.rs", 800) == [(1, 1, "function"), (3, 8, "test")]
    whole = "#![cfg(test)]\n\nuse super::*;\n\n" + module.replace("mod checks", "mod more")
    assert {kind for start, _, kind in kinds(whole, "src/parse_checks.rs", 60)
            if start > 4} == {"test"}
    other = kinds(module.replace("#![cfg(test)]", "#![cfg(unix)]"), "src/lib.rs", 800)
    assert "test" not in {kind for _, _, kind in other}  # another `cfg`: packed with it


def test_a_zig_test_block_is_a_test_chunk() -> None:
    zig = textwrap.dedent("""\
        const std = @import("std");

        pub fn add(a: u32) u32 {
            return a + 1;
        }

        test "add adds one" {
            try std.testing.expect(add(1) == 2);
        }
        test "add adds two" {
            try std.testing.expect(add(add(0)) == 2);
        }
        """)
    assert kinds(zig, "src/main.zig", 800) == [
        (1, 5, "function"), (7, 12, "test")]  # the two tests: one test chunk


def test_search_ranks_the_source_above_its_test_module(tmp_path: Path,
                                                       settings: Settings) -> None:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    cases = "".join(f"""
            #[test]
            fn parse_header_value_case_{n}() {{
                let header = "a; b; parse; header; value {n}";
                assert_eq!(parse_header(header).len(), 5, "parse header value");
            }}
        """ for n in range(12))
    (root / "src" / "header.rs").write_text(
        RUST.split("#[cfg(test)]")[0] + "#[cfg(test)]\nmod tests {\n" + cases + "}\n")
    library = LocalLibrary(settings, embedder_factory=RecordingFactory())
    library.index([str(root)])
    search = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    scope = Scope((str(root),))
    hits = search.search("parse a header value", k=10, scope=scope).hits
    assert (hits[0].start_line, hits[0].kind) == (1, "function")
    assert {h.kind for h in hits if h.start_line >= 12} == {"test"}
    assert len(hits) > 2
    asked = search.search("tests for parse header value", k=10, scope=scope).hits
    assert asked[0].kind == "test"
