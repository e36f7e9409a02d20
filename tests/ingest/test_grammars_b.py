"""Definition queries for the scripting, JVM, Apple, functional and systems languages.

Each fixture in `fixtures/languages/` is a realistic file; its table lists every
definition the query must find (qualified name, kind, first line including the doc
comments, attributes and `@doc`s above it, last line) and the one function over the
budget. The chunks must follow the definitions: a small one is never cut, the long one is
cut only between lines (and one chunk with its doc when definitions that size stay
whole), and the chunks are the file's own lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources

import pytest
from tree_sitter import Query
from tree_sitter_language_pack import get_language

from semlith.base.languages import language_of
from semlith.ingest.chunk import chunk_file
from semlith.ingest.definitions import find_definitions
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
    kinds_found,
    symbols_found,
)


@dataclass(frozen=True)
class Case:
    fixture: str
    # Qualified name of the function over MAX_CHARS (under WHOLE_TRIED): split between its
    # lines by default, one chunk with its doc when definitions that size stay whole.
    long: str
    symbols: list[tuple[str, str, int, int]]  # (qualname, kind, first line, last line)
    # Signatures of definitions whose node starts with an annotation or attribute, by
    # (qualname, kind): the declaration's line, not the `@Serializable` above it.
    signatures: dict[tuple[str, str], str] = field(default_factory=dict)


CASES = [
    Case("ruby.rb", "Billing.Client.charge", [
        ("Billing", "module", 6, 89),
        # The first comment of a body is outside the body node: still attached.
        ("Billing.TIMEOUT", "constant", 8, 9),
        ("Billing.ChargeError", "class", 11, 20),
        ("Billing.ChargeError.initialize", "method", 15, 19),
        ("Billing.Client", "class", 22, 88),
        ("Billing.Client.BASE_URL", "constant", 24, 25),
        ("Billing.Client.initialize", "method", 27, 31),
        ("Billing.Client.charge", "method", 33, 62),
        ("Billing.Client.refund", "method", 64, 67),
        ("Billing.Client.from_env", "method", 69, 72),
        ("Billing.Client.post", "method", 76, 83),
        ("Billing.Client.record_attempt", "method", 85, 87),
        ("format_price", "function", 91, 94),
    ]),
    Case("php.php", "App\\Billing.Invoice.amount", [
        ("App\\Billing", "module", 5, 112),
        ("App\\Billing.MAX_LINES", "constant", 10, 11),
        ("App\\Billing.Chargeable", "interface", 13, 19),
        ("App\\Billing.Chargeable.amount", "method", 18, 18),
        ("App\\Billing.PaymentMethod", "enum", 21, 32),
        ("App\\Billing.PaymentMethod.label", "method", 27, 31),
        ("App\\Billing.Timestamps", "interface", 34, 41),
        ("App\\Billing.Timestamps.touch", "method", 37, 40),
        ("App\\Billing.Invoice", "class", 43, 105),
        ("App\\Billing.Invoice.CURRENCY", "constant", 51, 52),
        ("App\\Billing.Invoice.__construct", "method", 56, 60),
        ("App\\Billing.Invoice.addLine", "method", 62, 72),
        ("App\\Billing.Invoice.amount", "method", 74, 99),
        ("App\\Billing.Invoice.vatRate", "method", 101, 104),
        # A function in a namespace is no method.
        ("App\\Billing.format_price", "function", 107, 111),
    ], {("App\\Billing.Invoice", "class"): "final class Invoice",
        ("App\\Billing.Invoice.addLine", "method"): "public function addLine("}),
    Case("kotlin.kt", "Invoice.amount", [
        # The grammar keeps the comment after the imports inside the import list.
        ("TIMEOUT_SECONDS", "constant", 6, 7),
        ("Cents", "type", 9, 10),
        ("Chargeable", "interface", 12, 18),
        ("Chargeable.amount", "method", 16, 17),
        ("PaymentMethod", "enum", 20, 27),
        ("PaymentMethod.label", "method", 25, 26),
        ("Line", "class", 29, 31),
        ("Invoice", "class", 33, 79),
        ("Invoice.addLine", "method", 40, 45),
        ("Invoice.amount", "method", 47, 71),
        ("Invoice.Rates", "class", 73, 78),
        ("Invoice.Rates.vatRate", "method", 75, 77),
        ("Audit", "class", 81, 84),
        ("Audit.write", "method", 83, 83),
        ("formatPrice", "function", 86, 87),
        ("log", "function", 89, 89),
    ], {("Line", "class"): "data class Line(", ("Invoice", "class"): "class Invoice(",
        ("Invoice.addLine", "method"): "fun addLine("}),
    Case("scala.scala", "Invoice.amount", [
        ("Cents", "type", 5, 6),
        ("Chargeable", "interface", 8, 12),
        ("Chargeable.amount", "method", 10, 11),
        ("PaymentMethod", "enum", 14, 17),
        ("Line", "class", 19, 20),
        ("Invoice", "class", 22, 60),
        ("Invoice.addLine", "method", 29, 34),
        ("Invoice.amount", "method", 36, 59),
        ("Invoice", "module", 62, 77),
        ("Invoice.MaxLines", "constant", 64, 65),
        # An indented body keeps the next definition's doc comment: it ends before it.
        ("Invoice.vatRate", "function", 67, 69),
        ("Invoice.Receipts", "module", 71, 76),
        ("Invoice.Receipts.render", "function", 73, 75),
        ("Audit", "module", 79, 82),
        ("Audit.write", "function", 81, 81),
        ("formatPrice", "function", 84, 85),
    ], {("Invoice", "class"): "class Invoice(", ("Invoice.addLine", "method"): "def addLine("}),
    Case("swift.swift", "Invoice.amount", [
        ("Cents", "type", 3, 4),
        ("timeoutSeconds", "constant", 6, 7),
        ("Chargeable", "interface", 9, 13),
        ("Chargeable.amount", "method", 11, 12),
        ("PaymentMethod", "enum", 15, 22),
        ("PaymentMethod.label", "method", 20, 21),  # a computed property
        ("Line", "struct", 24, 29),
        ("Invoice", "class", 31, 81),
        ("Invoice.init", "method", 37, 40),
        ("Invoice.addLine", "method", 42, 48),
        ("Invoice.amount", "method", 50, 70),
        ("Invoice.Receipt", "struct", 72, 80),
        ("Invoice.Receipt.render", "method", 76, 79),
        ("Invoice", "impl", 83, 89),
        ("Invoice.vatRate", "method", 85, 88),
        ("formatPrice", "function", 91, 94),
        ("log", "function", 96, 98),
    ], {("Invoice", "class"): "final class Invoice",
        ("Invoice.addLine", "method"): "func addLine("}),
    Case("lua.lua", "amount", [
        ("format_price", "function", 11, 16),
        ("new", "function", 22, 28),
        ("add_line", "method", 30, 36),
        ("vat_rate", "function", 38, 44),
        ("amount", "method", 46, 67),
        ("to_json", "function", 69, 72),
        ("log", "function", 74, 77),
    ]),
    Case("bash.sh", "dump_database", [
        ("BACKUP_DIR", "constant", 5, 6),
        ("log", "function", 9, 12),
        ("require_commands", "function", 14, 24),
        ("dump_database", "function", 26, 50),
        ("prune_archives", "function", 52, 60),
        ("main", "function", 62, 68),
    ]),
    Case("elixir.ex", "Billing.Invoice.amount", [
        ("Billing.Invoice", "module", 1, 84),
        ("Billing.Invoice.Line", "module", 15, 22),
        # `@doc` and `@spec` belong to the function below them.
        ("Billing.Invoice.Line.total", "function", 19, 21),
        ("Billing.Invoice.new", "function", 24, 27),
        # A head and two clauses are one function.
        ("Billing.Invoice.add_line", "function", 29, 38),
        ("Billing.Invoice.amount", "function", 40, 71),
        ("Billing.Invoice.vat_rate", "function", 73, 75),
        ("Billing.Invoice.tap_log", "function", 77, 83),
    ]),
    Case("haskell.hs", "amount", [
        # The haddock after the imports is inside the import list.
        ("Cents", "type", 14, 15),
        ("Customer", "type", 17, 19),
        ("Line", "type", 21, 27),
        ("Invoice", "type", 29, 33),
        ("PaymentMethod", "type", 35, 37),
        ("Chargeable", "interface", 39, 45),
        ("Chargeable.due", "method", 41, 42),
        ("Chargeable.settled", "method", 43, 45),
        ("Invoice", "impl", 47, 48),
        ("Invoice.due", "method", 48, 48),
        # A function is its signature and all its equations.
        ("maxLines", "function", 50, 52),
        ("vatRate", "function", 54, 58),
        ("amount", "function", 60, 80),
        ("label", "function", 82, 85),
        ("formatPrice", "function", 87, 92),
    ]),
    Case("zig.zig", "Invoice.amount", [
        ("max_lines", "constant", 6, 7),
        ("Cents", "type", 9, 10),
        ("PaymentMethod", "enum", 12, 24),
        ("PaymentMethod.label", "method", 17, 23),
        ("Line", "struct", 26, 31),
        ("InvoiceError", "enum", 33, 34),
        ("Invoice", "struct", 36, 80),
        ("Invoice.init", "method", 41, 44),
        ("Invoice.deinit", "method", 46, 48),
        ("Invoice.addLine", "method", 50, 55),
        ("Invoice.amount", "method", 57, 79),
        ("vatRate", "function", 82, 85),
        ("formatPrice", "function", 87, 90),
        ("amount applies VAT", "function", 92, 97),  # a test, named by its string
    ]),
]
LANGUAGES = ("ruby", "php", "kotlin", "scala", "swift", "lua", "bash", "elixir", "haskell",
             "zig")
# A chunk of nothing but these is the leftover end of a split definition.
CLOSERS = re.compile(r"\s*((end|[}\])];?)\s*)*")


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
    signatures = {(s.qualname, s.kind): s.signature for s in chunked.symbols}
    for key, start in case.signatures.items():
        assert signatures[key].startswith(start), (key, signatures[key])


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
def test_no_chunk_is_only_a_closing_bracket_or_end(case: Case) -> None:
    _, chunked = chunked_fixture(case.fixture)
    for chunk in chunked.chunks:
        assert not CLOSERS.fullmatch(chunk.text), chunk


@pytest.mark.parametrize("language", LANGUAGES)
def test_query_compiles_with_known_captures_only(language: str) -> None:
    source = resources.files("semlith.grammars") / f"{language}.scm"
    query = Query(get_language(language), query_text(source))
    for i in range(query.capture_count):
        capture = query.capture_name(i)
        assert capture in ("name", "clause", "test") or capture.startswith("_") or \
            capture.removeprefix("definition.") in KINDS, capture


@pytest.mark.parametrize("case", CASES, ids=fixture_id)
def test_parsing_needs_no_network(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the grammars ship compiled in the wheel
    _, chunked = chunked_fixture(case.fixture)
    assert chunked.strategy == "definitions" and chunked.symbols


def test_lua_functions_handed_to_a_wrapper_are_named_by_what_holds_the_result() -> None:
    """telescope.nvim's layouts are `layout_strategies.horizontal =
    make_documented_layout("horizontal", {...}, function(self, ...) ... end)`: 700 lines
    of chunks without a definition (issue #21)."""
    source = (
        '--- The horizontal layout.\n'
        'layouts.horizontal = make_layout("horizontal", { width = 0.8 }, function(self)\n'
        '  return self\nend)\n'
        'local on_key = debounce(function(key) return key end, 50)\n'
        'M.live_grep = require_on_call("files").live_grep\n'  # a value: no function here
        'local mt = setmetatable({}, { __index = base })\n'
        'function M.run()\n  local ok = pcall(function() error("x") end)\nend\n')  # an outcome
    found = kinds_found(source, "m.lua")
    assert found == [("horizontal", "function", 1, 4), ("on_key", "function", 5, 5),
                     ("run", "function", 8, 10)]


def test_lua_functions_in_tables_by_string_keys_and_built_on_the_spot() -> None:
    """Lua modules returned as tables, metatables, string keys (busted's `tests["..."]`)
    and an immediately called builder were chunks without a definition (issue #21)."""
    source = (
        'local M = {\n  setup = function(opts) return opts end,\n'
        '  ["run"] = function() end,\n}\n'
        'tests["parses a line"] = function() end\n'
        'local gen = (function()\n  return 1\nend)()\n'
        'local mt = setmetatable({}, {\n  __call = function(self, key) return key end,\n})\n')
    found = kinds_found(source, "m.lua")
    assert found == [("setup", "function", 2, 2), ("run", "function", 3, 3),
                     ("parses a line", "function", 5, 5), ("gen", "function", 6, 8),
                     ("__call", "function", 10, 10)]


def test_scala_3_givens_are_impls_named_or_by_the_type_they_give() -> None:
    source = ("object Codecs:\n"
              "  given intCodec: Codec[Int] with\n"
              "    def encode(x: Int): String = x.toString\n"
              "  given Codec[String] = StringCodec()\n"
              "  extension (s: String)\n"
              "    def shout: String = s.toUpperCase\n")
    symbols = chunk_file(source, language_of("c.scala")).symbols
    assert [(s.qualname, s.kind) for s in symbols] == [
        ("Codecs", "module"), ("Codecs.intCodec", "impl"),
        ("Codecs.intCodec.encode", "method"), ("Codecs.Codec", "impl"),
        ("Codecs.shout", "function")]


def test_elixir_callbacks_are_definitions_each_with_its_own_lines() -> None:
    """A behaviour's `@callback`s are what a module adopting it defines; one after
    another, each took the lines of those above it (ecto's Repo, issue #21)."""
    source = ('defmodule Store do\n'
              '  @doc """\n  Fetches every entry.\n  """\n'
              '  @callback all(opts :: Keyword.t()) :: [term]\n'
              '  @callback config() :: Keyword.t()\n'
              '  @macrocallback __using__(opts :: Keyword.t()) :: Macro.t()\n'
              '  # by its id\n'
              '  @callback get(id) :: t when id: term\n'
              '  @optional_callbacks config: 0\n\n'
              '  def helper(x), do: x\n'
              'end\n')
    found = kinds_found(source, "store.ex")
    assert found == [("Store", "module", 1, 13), ("all", "function", 2, 5),
                     ("config", "function", 6, 6), ("__using__", "function", 7, 7),
                     ("get", "function", 8, 9), ("helper", "function", 12, 12)]


def test_exunit_tests_are_definitions_named_by_their_string() -> None:
    """ExUnit's `describe` and `test` blocks are what a test file holds, as Zig's named
    tests are: ecto's test files were chunks labelled only with their module."""
    source = ('defmodule RepoTest do\n  use ExUnit.Case\n\n  describe "insert/2" do\n'
              '    test "inserts a struct" do\n      assert :ok == Repo.insert(%Post{})\n'
              '    end\n\n    test "raises on nil", %{conn: conn} do\n      assert conn\n    end\n'
              '  end\n\n  test "one line", do: assert(true)\n\n  defp helper(x), do: x\nend\n')
    found = definitions_found(source, "repo_test.exs")
    assert found == [("RepoTest", 1, 17, False), ("insert/2", 4, 12, True),
                     ("inserts a struct", 5, 7, True), ("raises on nil", 9, 11, True),
                     ("one line", 14, 14, True), ("helper", 16, 16, False)]
    # Named as a function could be: left out, or calls to `insert` would find it.
    named = source.replace('"insert/2"', '"insert"').replace('"raises on nil"', '"raises"')
    assert [d.name for d in find_definitions(named, language_of("repo_test.exs"))] == [
        "RepoTest", "inserts a struct", "one line", "helper"]


def test_kotlin_properties_with_accessors_are_definitions_over_them() -> None:
    """tree-sitter-kotlin puts a getter or setter beside its property, not inside it: a
    computed property was no definition, and its accessor was cut from it."""
    source = ("class Queue {\n  val isEmpty: Boolean\n    get() = size == 0\n\n"
              "  var name: String = \"\"\n    get() = field\n    set(value) { field = value }\n\n"
              "  val plain = 3\n\n  fun size(): Int = 0\n}\n"
              "val Queue.label: String\n  get() = name\n")
    assert symbols_found(source, "q.kt") == [
        ("Queue", "class", 1, 12), ("Queue.isEmpty", "method", 2, 3),
        ("Queue.name", "method", 5, 7), ("Queue.size", "method", 11, 11),
        ("label", "function", 13, 14)]


def test_kotlin_properties_of_a_file_are_variables() -> None:
    """kotlinpoet's `@JvmField public val STAR: WildcardTypeName = ...` (its public API)
    was no definition; a class's properties are still not, `const val` is a constant."""
    source = ("package x\n\n/** The star projection. */\n"
              "@JvmField public val STAR: WildcardTypeName = WildcardTypeName.producerOf(ANY)\n"
              "private const val LIMIT = 10\nvar counter = 0\n"
              "class Foo {\n  val inner = 1\n}\n")
    assert symbols_found(source, "t.kt") == [
        ("STAR", "variable", 3, 4), ("LIMIT", "constant", 5, 5),
        ("counter", "variable", 6, 6), ("Foo", "class", 7, 9)]


def test_busted_blocks_are_definitions_named_by_their_string() -> None:
    """Lua's busted specs (`describe`, `it`) are what a spec file holds (lazy.nvim's
    tests), as Jest's blocks are; one named as a function could be is left out."""
    source = ('local M = {}\ndescribe("plugin spec", function()\n'
              '  before_each(function() end)\n  it("parses a url", function()\n'
              '    assert(true)\n  end)\n  it("setup", function() end)\nend)\n'
              'function M.setup() end\nreturn M\n')
    found = definitions_found(source, "plugin_spec.lua")
    assert found == [("plugin spec", 2, 8, True), ("parses a url", 4, 6, True),
                     ("setup", 9, 9, False)]


def test_scala_test_blocks_are_definitions_named_by_their_string() -> None:
    """munit / utest / FunSuite's `test("...") { ... }`, as Jest's blocks are."""
    source = ('class MathSuite extends munit.FunSuite {\n  test("adds two numbers") {\n'
              '    assertEquals(1 + 1, 2)\n  }\n  test("parse") { assert(true) }\n}\n')
    found = definitions_found(source, "MathSuite.scala")
    assert found == [("MathSuite", 1, 6, False), ("adds two numbers", 2, 4, True)]
