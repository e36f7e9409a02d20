"""Definition queries for the C-family and web languages, checked on one fixture each.

Each fixture in `fixtures/languages/` is a realistic file; its table lists every
definition the query must find (qualified name, kind, first line including the doc
comments and attributes above it, last line) and the one function over the budget. The
chunks must follow the definitions: a small one is never cut, the long one is one chunk
with its doc (and cut only between lines when it may not stay whole), and the chunks are
the file's own lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources

import pytest
from tree_sitter import Query
from tree_sitter_language_pack import get_language

from semlith.base.languages import language_of
from semlith.ingest.queries import query_text
from tests.grammar_checks import (
    FIXTURES,
    KINDS,
    WHOLE_TRIED,
    assert_chunks_are_the_files_lines_once,
    assert_long_definition_kept_whole,
    assert_long_definition_split_between_lines,
    assert_small_definitions_are_never_cut,
    chunked_fixture,
    def_line,
    definitions_found,
    fixture_id,
)


@dataclass(frozen=True)
class Case:
    fixture: str
    # Qualified name of the function over MAX_CHARS (under WHOLE_TRIED): split between its
    # lines by default, one chunk with its doc when definitions that size stay whole.
    long: str
    symbols: list[tuple[str, str, int, int]]  # (qualname, kind, first line, last line)
    # Signatures of definitions whose node starts with an annotation or attribute: the
    # signature is the declaration's line, not the `@Override` above it.
    signatures: dict[str, str] = field(default_factory=dict)


CASES = [
    Case("javascript.js", "retry", [
        ("MAX_ATTEMPTS", "constant", 4, 5),
        ("RETRYABLE", "constant", 7, 7),
        ("backoff", "function", 9, 15),
        ("isRetryable", "function", 17, 18),
        ("RetryStats", "class", 20, 42),
        ("RetryStats.constructor", "method", 24, 27),
        ("RetryStats.fail", "method", 29, 32),
        ("RetryStats.failures", "method", 34, 36),
        ("RetryStats.log", "method", 38, 41),
        ("retry", "function", 44, 72),
        ("delays", "function", 74, 79),
        ("describe", "function", 81, 84),
    ]),
    Case("typescript.ts", "EventBus.publish", [
        ("Topics", "interface", 4, 8),
        ("Handler", "type", 10, 11),
        ("DEAD_LETTER_LIMIT", "constant", 13, 14),
        ("Delivery", "enum", 16, 20),
        ("Publisher", "interface", 22, 25),
        ("Publisher.publish", "method", 24, 24),
        ("BaseBus", "class", 27, 38),
        ("BaseBus.constructor", "method", 30, 30),
        ("BaseBus.now", "method", 32, 35),
        ("BaseBus.size", "method", 37, 37),
        ("EventBus", "class", 40, 84),
        ("EventBus.constructor", "method", 46, 48),
        ("EventBus.subscribe", "method", 50, 56),
        ("EventBus.publish", "method", 58, 79),
        ("EventBus.size", "method", 81, 83),
        ("TopicNames", "module", 86, 92),
        ("TopicNames.join", "function", 88, 91),
        ("./metrics", "module", 94, 97),
        ("reportError", "function", 99, 100),
        ("logged", "function", 102, 109),
    ], {"BaseBus": "abstract class BaseBus", "EventBus.publish": "async publish<"}),
    Case("tsx.tsx", "ResultList", [
        ("PAGE_SIZE", "constant", 4, 5),
        ("Result", "interface", 7, 12),
        ("ResultListProps", "type", 14, 18),
        ("Highlight", "function", 20, 33),
        ("ResultList", "function", 35, 71),
        ("History", "class", 73, 85),
        ("History.record", "method", 77, 80),
        ("History.render", "method", 82, 84),
    ]),
    Case("go.go", "Cache.Put", [
        ("DefaultCapacity", "constant", 11, 12),
        ("ReasonSize", "constant", 16, 16),
        ("ReasonExpired", "constant", 17, 17),  # not the comment ending the line above
        ("ErrMissing", "variable", 20, 21),  # a package's variable: its sentinel error
        ("Reason", "type", 23, 24),
        ("Key", "type", 26, 27),
        ("Evicter", "interface", 29, 32),
        ("Evicter.OnEvict", "method", 31, 31),
        ("entry", "struct", 35, 40),
        ("stamp", "type", 42, 43),
        ("Cache", "struct", 46, 54),
        ("New", "function", 56, 63),
        ("Cache.Get", "method", 65, 75),
        ("Cache.Put", "method", 77, 109),
        ("Cache.remove", "method", 111, 117),
        ("ErrClosed", "variable", 121, 122),  # each of a group; `_` is no name
        ("minTTL", "variable", 123, 123),
    ]),
    Case("rust.rs", "Limiter.check", [
        ("MAX_WINDOW", "constant", 7, 8),
        ("DEFAULT_NAME", "constant", 10, 10),
        ("Verdict", "type", 12, 13),
        ("Throttled", "struct", 15, 20),
        ("Policy", "enum", 22, 27),
        ("Clock", "interface", 29, 32),
        ("Clock.now", "method", 31, 31),
        ("Limiter", "struct", 34, 40),
        ("Limiter", "impl", 42, 82),
        ("Limiter.new", "method", 43, 47),
        ("Limiter.check", "method", 49, 76),
        ("Limiter.reset", "method", 78, 81),
        ("Throttled", "impl", 84, 88),
        ("Throttled.fmt", "method", 85, 87),
        ("trace_throttle", "function", 90, 95),
        ("label", "function", 97, 100),
        ("tests", "module", 102, 122),
        ("tests.Fixed", "struct", 106, 106),
        ("tests.Fixed", "impl", 108, 112),
        ("tests.Fixed.now", "method", 109, 111),
        ("tests.refuses_over_limit", "function", 114, 121),
    ]),
    Case("java.java", "OrderPricer.price", [
        ("OrderPricer", "class", 8, 76),
        ("OrderPricer.DEFAULT_TAX", "constant", 13, 14),
        ("OrderPricer.OrderPricer", "method", 18, 21),
        ("OrderPricer.price", "method", 23, 48),
        ("OrderPricer.Quote", "class", 50, 56),
        ("OrderPricer.Quote.discounted", "method", 52, 55),
        ("OrderPricer.Line", "class", 58, 75),
        ("OrderPricer.Line.Line", "method", 64, 68),
        ("OrderPricer.Line.sku", "method", 70, 70),
        ("OrderPricer.Line.quantity", "method", 72, 72),
        ("OrderPricer.Line.unitPrice", "method", 74, 74),
        ("Pricer", "interface", 78, 81),
        ("Pricer.price", "method", 80, 80),
        ("Region", "enum", 83, 91),
        ("Region.taxRate", "method", 87, 90),
        ("ThreadSafe", "interface", 93, 96),
    ], {"OrderPricer.price": "public Quote price(Order order)"}),
    Case("c.c", "ring_write", [
        ("RING_SIZE", "constant", 8, 9),
        ("RING_MASK", "constant", 10, 10),
        ("MIN", "function", 12, 13),
        ("RING_NAME", "constant", 15, 16),
        ("ring_len_t", "type", 18, 19),
        ("ring_error", "enum", 21, 26),
        ("ring", "struct", 28, 33),
        ("ring_stats_t", "struct", 35, 39),
        ("ring_used", "function", 41, 45),
        ("ring_new", "function", 47, 52),
        ("ring_write", "function", 54, 78),
        ("ring_read", "function", 80, 89),
        ("ring_free", "function", 91, 95),
        ("RING_DUMP_WIDTH", "constant", 98, 99),
        ("ring_dump", "struct", 101, 105),
    ]),
    Case("cpp.cpp", "docs::cache.get", [
        ("LRU_VERSION", "constant", 8, 8),
        ("docs::cache", "module", 10, 87),
        ("docs::cache.kDefaultCapacity", "constant", 12, 13),
        ("docs::cache.DocPtr", "type", 15, 16),
        ("docs::cache.Stats", "struct", 18, 22),
        ("docs::cache.Outcome", "enum", 24, 25),
        ("docs::cache.is_hit", "function", 27, 28),
        ("docs::cache.Lru", "class", 30, 59),
        ("docs::cache.Lru.kMaxKey", "constant", 34, 35),
        ("docs::cache.Lru.Lru", "method", 37, 38),
        ("docs::cache.Lru.stats", "method", 43, 45),
        ("docs::cache.Lru.Entry", "struct", 48, 52),
        # `Lru<Parser>::get` outside its class: a method named by its last part.
        ("docs::cache.get", "method", 61, 85),
        ("overflow", "function", 92, 96),
        ("Printer", "struct", 101, 105),  # a partial specialisation, named by its template
    ], {"docs::cache.Lru.stats": "const Stats& stats() const"}),
    Case("csharp.cs", "Example.Jobs.Scheduler.RunDueAsync", [
        ("Handler", "type", 4, 4),
        ("Example.Jobs", "module", 6, 99),
        ("Example.Jobs.Priority", "enum", 8, 14),
        ("Example.Jobs.IScheduler", "interface", 16, 20),
        ("Example.Jobs.IScheduler.Enqueue", "method", 19, 19),
        ("Example.Jobs.Completed", "type", 22, 23),
        ("Example.Jobs.Job", "class", 25, 27),
        ("Example.Jobs.Scheduler", "class", 29, 98),
        ("Example.Jobs.Scheduler.MaxQueued", "constant", 33, 34),
        ("Example.Jobs.Scheduler.Scheduler", "method", 39, 42),
        ("Example.Jobs.Scheduler.Count", "method", 44, 45),  # a property with code
        ("Example.Jobs.Scheduler.Enqueue", "method", 47, 55),
        ("Example.Jobs.Scheduler.RunDueAsync", "method", 57, 89),
        ("Example.Jobs.Scheduler.Slot", "struct", 91, 97),
        ("Example.Jobs.Scheduler.Slot.ToString", "method", 96, 96),
    ], {"Example.Jobs.Job": "public record Job(",
        "Example.Jobs.Scheduler": "public sealed class Scheduler",
        "Example.Jobs.Scheduler.RunDueAsync": "public async"}),
]
LANGUAGES = ("javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp", "csharp")


def test_the_table_covers_every_language() -> None:
    assert sorted(language_of(FIXTURES / c.fixture).name for c in CASES) == sorted(LANGUAGES)


@pytest.mark.parametrize("case", CASES, ids=fixture_id)
def test_every_definition_is_found_with_its_lines(case: Case) -> None:
    _, chunked = chunked_fixture(case.fixture)
    assert chunked.strategy == "definitions"
    found = [(s.qualname, s.kind, s.start_line, s.end_line) for s in chunked.symbols]
    assert found == case.symbols


@pytest.mark.parametrize("case", CASES, ids=fixture_id)
def test_each_symbol_points_at_the_chunk_holding_its_signature_and_doc(case: Case) -> None:
    lines, chunked = chunked_fixture(case.fixture)
    for symbol in chunked.symbols:
        chunk = chunked.chunks[symbol.chunk]
        assert chunk.start_line <= def_line(lines, symbol) <= chunk.end_line, symbol
        assert chunk.start_line <= symbol.start_line, symbol  # the doc comment is not apart
    signatures = {s.qualname: s.signature for s in chunked.symbols}
    for qualname, start in case.signatures.items():
        assert signatures[qualname].startswith(start), (qualname, signatures[qualname])


@pytest.mark.parametrize("case", CASES, ids=fixture_id)
def test_small_definitions_are_never_cut(case: Case) -> None:
    assert_small_definitions_are_never_cut(*chunked_fixture(case.fixture))


@pytest.mark.parametrize("case", CASES, ids=fixture_id)
def test_the_long_definition_is_split_between_its_lines(case: Case) -> None:
    assert_long_definition_split_between_lines(*chunked_fixture(case.fixture), case.long)


@pytest.mark.parametrize("case", CASES, ids=fixture_id)
def test_the_long_definition_stays_whole_with_its_doc(case: Case) -> None:
    assert_long_definition_kept_whole(
        *chunked_fixture(case.fixture, whole_chars=WHOLE_TRIED), case.long)


@pytest.mark.parametrize("case", CASES, ids=fixture_id)
def test_chunks_are_the_files_lines_each_line_once(case: Case) -> None:
    assert_chunks_are_the_files_lines_once(*chunked_fixture(case.fixture))


@pytest.mark.parametrize("case", CASES, ids=fixture_id)
def test_no_chunk_is_only_a_closing_bracket(case: Case) -> None:
    _, chunked = chunked_fixture(case.fixture)
    for chunk in chunked.chunks:
        assert re.search(r"\w", re.sub(r"//.*", "", chunk.text)), chunk


@pytest.mark.parametrize("language", LANGUAGES)
def test_query_compiles_with_known_captures_only(language: str) -> None:
    source = resources.files("semlith.grammars") / f"{language}.scm"
    query = Query(get_language(language), query_text(source))
    captures = {query.capture_name(i) for i in range(query.capture_count)}
    helpers = {c for c in captures if c.startswith("_")}  # only read by predicates
    assert "name" in captures
    known = {"name", "qualifier", "test", "test.file"} | {f"definition.{kind}" for kind in KINDS}
    assert captures - helpers <= known


def test_tsx_query_is_the_typescript_query() -> None:
    grammars = resources.files("semlith.grammars")
    for folder in (grammars, grammars / "edges"):
        tsx = query_text(folder / "tsx.scm")  # one comment line, then typescript.scm
        assert tsx.split("\n", 1)[1].rstrip() == query_text(folder / "typescript.scm").rstrip()


def test_javascript_and_typescript_share_one_file() -> None:
    grammars = resources.files("semlith.grammars")
    shared = query_text(grammars / "ecmascript.scm")
    for language in ("javascript", "typescript", "tsx"):
        assert shared in query_text(grammars / f"{language}.scm")
        assert "; include:" not in query_text(grammars / f"{language}.scm")


@pytest.mark.parametrize("case", CASES, ids=fixture_id)
def test_parsing_needs_no_network(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the grammars ship compiled in the wheel
    _, chunked = chunked_fixture(case.fixture)
    assert chunked.strategy == "definitions" and chunked.symbols


def test_test_blocks_are_definitions_named_by_their_string() -> None:
    """Jest / Vitest / Mocha blocks are what a test file holds: zod's test files were
    44 % of its chunks, none labelled. Named by their string, as Zig's tests are."""
    source = ('import { test } from "vitest";\n\n'
              'describe("string coercion", () => {\n'
              '  test("converts numbers", () => {\n    expect(1).toBe(1);\n  });\n'
              "  it('keeps strings', function () {\n    expect(1).toBe(1);\n  });\n"
              '  test.only(`in a template`, () => {});\n});\n\n'
              'describe("parse", () => {\n  it("works on input", () => {});\n});\n'
              'app.get("/", (req, res) => res.send("hi"));\n'
              # AVA's macros come between the name and the function (got's tests), Jest's
              # timeout after it.
              "test('reads a cookie', withServer, async (t, server) => {\n  t.pass();\n});\n"
              'test.serial("waits for the socket", async () => {}, 5000);\n'
              'test("a title only", withServer);\n')
    found = definitions_found(source, "coerce.test.ts")
    # `describe("parse")` is named as a function could be: calls to `parse` would find it.
    assert found == [("string coercion", 3, 11, True), ("converts numbers", 4, 6, True),
                     ("keeps strings", 7, 9, True), ("in a template", 10, 10, True),
                     ("works on input", 14, 14, True), ("reads a cookie", 17, 19, True),
                     ("waits for the socket", 20, 20, True)]


def test_a_type_an_item_macro_defines_is_a_definition() -> None:
    """axum declares its rejections in macros (`define_rejection! { pub struct
    JsonDataError(Error); }`), async crates their futures in `pin_project!`: `symbol
    JsonDataError` found nothing. A `quote!` in a function body only generates code."""
    source = ("define_rejection! {\n    /// Rejection type for a body that is no JSON.\n"
              "    pub struct JsonSyntaxError(Error);\n}\n\n"
              "composite_rejection! {\n    pub enum JsonRejection {\n        JsonSyntaxError,\n"
              "    }\n}\n\nmod flags {\n"
              "    bitflags! { pub struct Mode: u8 { const A = 1; } }\n}\n\n"
              "fn expand() -> TokenStream {\n    quote! { struct #name; }\n}\n")
    found = [(name, start) for name, start, _, _ in definitions_found(source, "lib.rs")]
    assert found == [("JsonSyntaxError", 1), ("JsonRejection", 6), ("flags", 12),
                     ("Mode", 13), ("expand", 16)]
