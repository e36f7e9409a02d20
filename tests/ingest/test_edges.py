"""Edge extraction (issue #22, first layer): fixtures per tier-1 language, a call-by-name
table for tier 2, and the files that must not stall or break a run."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from semlith.base.languages import LANGUAGES, resolve_language
from semlith.ingest import definitions
from semlith.ingest import parse as parsing
from semlith.ingest.graph import (
    MODULE,
    FileEdges,
    QualifierKind,
    edge_query,
    edges_from_tree,
    extract,
    extract_edges,
    has_edges,
)
from semlith.ingest.graph.shapes import TEXT_CHARS
from tests.hostile_files import generated_python
from tests.ingest.graph_fixtures import GRAPH, expectations, fixture_edges, missing, unexpected

TIER_1 = ["python", "javascript", "typescript", "go", "rust", "java"]
HANG_GUARD = 120.0  # seconds: only a stuck extraction takes this long


@pytest.mark.parametrize("language", TIER_1)
def test_fixture_project_edges(language: str) -> None:
    found = fixture_edges(language)
    assert found, f"no source files in fixtures/graph/{language}"
    assert {f: e.failed for f, e in found.items() if e.failed} == {}
    expected = expectations(language)
    assert missing(found, expected["must"]) == []
    assert unexpected(found, expected.get("must_not", {})) == []


def test_every_tier_1_language_has_a_fixture() -> None:
    assert sorted(p.name for p in GRAPH.iterdir() if p.is_dir()) == sorted(TIER_1)


def test_every_language_with_a_grammar_has_an_edge_query_that_compiles() -> None:
    with_grammar = [lang for lang in LANGUAGES if lang.grammar is not None]
    assert [lang.name for lang in with_grammar if edge_query(str(lang.grammar)) is None] == []
    assert not has_edges(resolve_language("markdown"))


def test_the_wheel_declares_the_edge_queries_and_the_package() -> None:
    # tests/test_packaging.py builds the wheel; this says what it must then carry.
    import tomllib

    project = tomllib.loads((GRAPH.parent.parent / "pyproject.toml").read_text())
    setuptools = project["tool"]["setuptools"]
    assert "edges/*.scm" in setuptools["package-data"]["semlith.grammars"]
    assert "semlith.ingest.graph" in setuptools["packages"]


# Tier 2: calls by name and receiver (and imports and bases where the grammar gives them).
TIER_2 = {
    "ruby": ("require 'json'\nclass A < B\n  def m\n    @s.send(1)\n    self.bar\n"
             "    foo(2)\n    puts 'x(y)'\n  end\nend\n",
             {("send", "@s", "member"), ("bar", "self", "self"), ("foo", "", "none")}),
    "php": ("<?php\nclass E extends F { function m() { $this->x->send(); parent::m();"
            " baz(); } }\n",
            {("send", "$this->x", "member"), ("m", "parent", "super"), ("baz", "", "none")}),
    "c": ('#include <stdio.h>\nint main() { printf("x(y)"); s->f(1); }\n',
          {("printf", "", "none"), ("f", "s", "name")}),
    "cpp": ("class A : public B { void m() { this->f(); std::sort(a); obj.h(); } };\n",
            {("f", "this", "self"), ("sort", "std", "name"), ("h", "obj", "name")}),
    "csharp": ("class E : F { void M() { this.X(); base.M(); a.b.C(); } }\n",
               {("X", "this", "self"), ("M", "base", "super"), ("C", "a.b", "module_path")}),
    "kotlin": ("class E : F() { fun m() { this.x(); super.m(); foo() } }\n",
               {("x", "this", "self"), ("m", "super", "super"), ("foo", "", "none")}),
    "scala": ("class F extends G { def m() = { this.x(); foo(1) } }\n",
              {("x", "this", "self"), ("foo", "", "none")}),
    "swift": ("class E: F { func m() { self.x(); a.b.c() } }\n",
              {("x", "self", "self"), ("c", "a.b", "module_path")}),
    "lua": ("local m = require('x')\nfunction M:f() self:g(); a.b.c(2) end\n",
            {("g", "self", "self"), ("c", "a.b", "module_path")}),
    "bash": ("f() { echo hi; g 1 2; }\nf\n./run.sh x\n",
             {("echo", "", "none"), ("g", "", "none"), ("f", "", "none"),
              ("./run.sh", "", "none")}),
    "elixir": ("defmodule A do\n  def m(x) do\n    foo(1)\n    Y.bar(x)\n  end\nend\n",
               {("foo", "", "none"), ("bar", "Y", "name")}),
    "haskell": ("f x = g (Map.insert x)\n", {("g", "", "none"), ("insert", "Map", "name")}),
    "zig": ('fn f() void { std.debug.print("x", .{}); g(1); }\n',
            {("print", "std.debug", "module_path"), ("g", "", "none")}),
}


@pytest.mark.parametrize("language", sorted(TIER_2))
def test_tier_2_calls_by_name_and_receiver(language: str) -> None:
    source, calls = TIER_2[language]
    edges = extract_edges(source, resolve_language(language))
    assert edges.failed == ""
    found = {(c.name, c.receiver, str(c.qualifier_kind)) for c in edges.calls}
    assert calls <= found
    assert all(c.name not in ("y", "def", "m") or c.receiver for c in edges.calls), edges.calls


TIER_2_IMPORTS = {
    "ruby": ("require_relative 'lib/x'\n", [("lib/x", "", "")]),
    "php": ("<?php\nuse A\\B\\C as D;\n", [("A\\B", "C", "D")]),
    "c": ('#include <stdio.h>\n#include "x.h"\n', [("stdio.h", "", ""), ("x.h", "", "")]),
    "cpp": ("#include <vector>\nusing namespace std;\n", [("vector", "", ""), ("std", "*", "")]),
    "csharp": ("using System.IO;\nusing D = A.B;\n", [("System.IO", "", ""), ("A.B", "", "D")]),
    "kotlin": ("import x.y.W as V\n", [("x.y", "W", "V")]),
    "swift": ("import Foundation\n", [("Foundation", "", "")]),
    "lua": ("local m = require('mod.x')\n", [("mod.x", "", "")]),
    "bash": ("source ./lib.sh\n", [("./lib.sh", "", "")]),
    "elixir": ("defmodule A do\n  alias X.Y\nend\n", [("X.Y", "", "")]),
    "haskell": ("import qualified Data.Map as Map\n", [("Data.Map", "", "Map")]),
    "zig": ('const std = @import("std");\n', [("std", "", "std")]),
}


@pytest.mark.parametrize("language", sorted(TIER_2_IMPORTS))
def test_tier_2_imports(language: str) -> None:
    source, imports = TIER_2_IMPORTS[language]
    edges = extract_edges(source, resolve_language(language))
    assert [(i.module, i.name, i.alias) for i in edges.imports] == imports


@pytest.mark.parametrize(("language", "source", "bases"), [
    ("ruby", "class A < B::C\n  include Mod\nend\n", [("A", "B::C", "extends"),
                                                      ("A", "Mod", "mixin")]),
    ("php", "<?php\nclass E extends F implements G {}\n", [("E", "F", "extends"),
                                                          ("E", "G", "implements")]),
    ("cpp", "class A : public B, private ns::C {};\n", [("A", "B", "extends"),
                                                        ("A", "ns::C", "extends")]),
    ("scala", "class F extends G with H\n", [("F", "G", "extends"), ("F", "H", "extends")]),
    ("kotlin", "class E : F(), G\n", [("E", "F", "extends"), ("E", "G", "extends")]),
])
def test_tier_2_bases(language: str, source: str, bases: list[tuple[str, str, str]]) -> None:
    edges = extract_edges(source, resolve_language(language))
    assert [(b.child, b.parent, str(b.kind)) for b in edges.inherits] == bases


# -- files that must not break a run -----------------------------------------------------

def test_a_file_with_syntax_errors_still_gives_the_edges_around_them() -> None:
    edges = extract_edges("def broken(:\n    x = (\n\ndef fine():\n    helper()\n",
                          resolve_language("python"))
    assert edges.failed == ""
    # Error recovery may read `fine()` as a call inside the open parenthesis; the call in
    # the body after the broken lines is there either way.
    assert ("helper", 5) in [(c.name, c.line) for c in edges.calls]


def test_a_parse_past_the_deadline_loses_the_files_edges_with_the_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "EDGE_SECONDS", -1.0)
    edges = extract_edges("def f():\n    g()\n", resolve_language("python"))
    assert edges == FileEdges(failed=edges.failed)
    assert "took over" in edges.failed


def test_definitions_that_fail_lose_the_files_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsing, "PARSE_SECONDS", -1.0)
    edges = extract_edges("def f():\n    g()\n", resolve_language("python"))
    assert edges.calls == () and edges.failed.startswith("definitions: ")


def test_a_language_without_edges_says_so() -> None:
    edges = extract_edges("# Title\n\ncall(me)\n", resolve_language("markdown"))
    assert edges == FileEdges(failed="no edge query for markdown")


def test_invalid_utf8_keeps_lines_and_callers_right() -> None:
    # The reader decodes with errors="replace" (ingest/extract.py): U+FFFD is 3 bytes.
    text = b'x = "\xff\xfe\xfd"\ndef f():\n    y = "\xc3("\n    g(y)\n'.decode(
        "utf-8", errors="replace")
    edges = extract_edges(text + "\udcff\n", resolve_language("python"))
    assert [(c.name, c.line, c.column, c.caller) for c in edges.calls] == [("g", 4, 4, "f")]


def test_deeply_nested_code_gives_its_edges_or_a_reason() -> None:
    depth = 3000
    nested = "x = " + "f(" * depth + ")" * depth + "\n"
    classes = "".join(f"{'    ' * i}class C{i}:\n" for i in range(200)) + \
        "    " * 200 + "def m(self):\n" + "    " * 201 + "self.go()\n"
    edges = _bounded(lambda: extract_edges(nested + classes, resolve_language("python")))
    assert edges.failed or len([c for c in edges.calls if c.name == "f"]) == depth
    if not edges.failed:
        go = next(c for c in edges.calls if c.name == "go")
        assert go.caller == ".".join(f"C{i}" for i in range(200)) + ".m"
        assert go.qualifier_kind is QualifierKind.SELF


@pytest.mark.slow
def test_a_huge_generated_file_finishes_within_its_bound() -> None:
    edges = _bounded(lambda: extract_edges(generated_python(), resolve_language("python")))
    if edges.failed:  # a busy machine: the bound held, the file lost its edges
        assert "took over" in edges.failed and edges.calls == ()
        return
    assert len(edges.calls) == 40_000
    assert edges.calls[-1].caller == "handler_39999" and edges.calls[-1].name == "call"
    assert len(edges.contains) == 40_000


def test_edges_past_the_cap_are_cut_and_marked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "MAX_EDGES", 10)
    edges = extract_edges(generated_python(100), resolve_language("python"))
    assert edges.truncated and len(edges.calls) == 10


def _bounded(work: Any) -> FileEdges:
    """`work()` in a thread, failing the test (not hanging the suite) if it never ends."""
    result: list[FileEdges] = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    assert not thread.is_alive(), f"extraction still running after {HANG_GUARD:.0f} s"
    return result[0]


# -- shapes ------------------------------------------------------------------------------

def test_receivers_are_bounded_and_on_one_line() -> None:
    chain = "builder" + "".join(f".step_{i}(\n        arg_{i})" for i in range(30))
    edges = extract_edges(f"def f():\n    {chain}.done()\n", resolve_language("python"))
    done = next(c for c in edges.calls if c.name == "done")
    assert len(done.receiver) == TEXT_CHARS and "\n" not in done.receiver
    assert done.receiver.startswith("builder.step_0( arg_0).step_1(")
    assert done.qualifier_kind is QualifierKind.CALL


def test_edges_from_a_tree_the_caller_parsed_are_the_same() -> None:
    from tree_sitter_language_pack import get_parser

    python = resolve_language("python")
    text = (GRAPH / "python" / "shop" / "models.py").read_text()
    data = text.encode("utf-8", "replace")
    tree = get_parser("python").parse(data)
    once = edges_from_tree(tree, data, python, definitions.find_definitions(text, python),
                           deadline=float("inf"))
    assert once == extract_edges(text, python) and once.calls


def test_containment_follows_the_chunkers_qualnames() -> None:
    from semlith.ingest.chunk import chunk_file

    rust = resolve_language("rust")
    text = "mod net {\n    pub struct S;\n    impl S {\n        fn send(&self) {}\n    }\n}\n"
    qualnames = {s.qualname for s in chunk_file(text, rust).symbols}
    edges = extract_edges(text, rust)
    assert {c.child for c in edges.contains} == qualnames
    assert ("net.S", "net.S.send") in {(c.parent, c.child) for c in edges.contains}
    assert {c.parent for c in edges.contains if c.child == "net"} == {MODULE}


def test_a_member_assigned_to_an_object_is_named_as_the_chunker_names_it() -> None:
    # `proto.handle = function` is `proto.handle` (#21's qualifier): its calls' caller and
    # its containment record say so, and the record's line is its own, not its comment's
    from semlith.ingest.chunk import chunk_file

    js = resolve_language("javascript")
    text = ("var proto = {};\n\n/**\n * Handle it.\n */\n\n"
            "proto.handle = function handle(req) {\n  return this.next(req);\n};\n")
    qualnames = {s.qualname for s in chunk_file(text, js).symbols}
    edges = extract_edges(text, js)
    assert qualnames == {"proto.handle"}
    assert [(c.parent, c.child, c.line) for c in edges.contains] == [
        (MODULE, "proto.handle", 7)]
    assert [(c.name, c.caller) for c in edges.calls] == [("next", "proto.handle")]


def test_calls_in_a_zig_test_are_the_tests() -> None:
    # Zig keeps its tests beside the code: a test named by a string is a definition, so
    # `impact` lists it among the callers instead of the file's top level.
    source = ('fn total(a: u32) u32 { return a; }\n\ntest "total adds VAT" {\n'
              '    try std.testing.expectEqual(@as(u32, 2), total(2));\n}\n\n'
              'test total {\n    _ = total(1);\n}\n')
    edges = extract_edges(source, resolve_language("zig"))
    callers = {(c.name, c.line): c.caller for c in edges.calls}
    assert callers[("total", 4)] == "total adds VAT"
    assert callers[("total", 8)] == "<module>"  # named by a declaration: not one of its own
