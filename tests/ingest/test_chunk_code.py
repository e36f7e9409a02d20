"""Definition-aware chunking: Python and Markdown here; the other languages in
test_grammars_a.py / test_grammars_b.py."""

from __future__ import annotations

import itertools
import os
import textwrap

import pytest

from semlith.base.languages import language_of
from semlith.ingest.chunk import MAX_CHARS, MAX_CHUNKS_PER_FILE, Chunked, chunk_file
from semlith.ingest.definitions import has_definitions
from semlith.ingest.signatures import SIGNATURE_CHARS

PY = language_of("x.py")


def chunked(source: str, path: str = "x.py") -> Chunked:
    return chunk_file(textwrap.dedent(source).lstrip("\n"), language_of(path))


def lines_of(source: str) -> list[str]:
    return textwrap.dedent(source).lstrip("\n").split("\n")


def assert_exact(result: Chunked, source: str) -> None:
    """Every chunk's text is exactly its lines of the file."""
    lines = lines_of(source)
    for c in result.chunks:
        if c.start_line == c.end_line and len(lines[c.start_line - 1]) > MAX_CHARS:
            assert c.text in lines[c.start_line - 1]  # a piece of an over-long line
        else:
            assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])


SOURCE = '''
import os

CONSTANT = 3


# The greeting everyone gets.
@decorator
@other(1)
def hello(name):
    """Say hello."""
    return f"hello {name}"


class Router:
    """Routes requests."""

    class Route:
        """One route."""

        def matches(self, path):
            return path == self.pattern

    def add_route(self, pattern, handler):
        self.routes.append((pattern, handler))
'''


def test_module_level_names_are_definitions() -> None:
    # flask's `g`, `request` and `current_app` are proxies bound at the top of
    # globals.py: `semlith symbol g` found nothing before.
    result = chunked('''
        import typing as t

        g: t.Any = LocalProxy(  # type: ignore[assignment]
            _cv_app, "g"
        )
        a = b = 1
        x, y = 1, 2
        _ = setup()
        if t.TYPE_CHECKING:
            hidden = 1

        def f():
            local = 2
            return local
        ''')
    found = {s.qualname: (s.kind, s.start_line, s.end_line) for s in result.symbols}
    assert found == {"g": ("variable", 3, 5), "a": ("variable", 6, 6),
                     "f": ("function", 12, 14)}


def test_definitions_become_symbols_with_exact_lines() -> None:
    result = chunked(SOURCE)
    assert result.strategy == "definitions"
    by_name = {s.qualname: s for s in result.symbols}
    assert set(by_name) == {"CONSTANT", "hello", "Router", "Router.Route",
                            "Router.Route.matches", "Router.add_route"}
    assert (by_name["CONSTANT"].start_line, by_name["CONSTANT"].kind) == (3, "variable")
    hello = by_name["hello"]
    assert (hello.start_line, hello.end_line, hello.kind) == (6, 11, "function")
    assert hello.signature == "def hello(name):"  # the def line, not the decorator
    assert by_name["Router.Route.matches"].kind == "method"
    assert by_name["Router.Route"].kind == "class"
    assert (by_name["Router"].start_line, by_name["Router"].end_line) == (14, 24)
    for symbol in result.symbols:
        holder = result.chunks[symbol.chunk]
        assert holder.start_line <= symbol.start_line + 2 and symbol.start_line <= holder.end_line
    assert_exact(result, SOURCE)


def test_a_small_definition_is_never_cut() -> None:
    result = chunked(SOURCE)
    for symbol in result.symbols:
        inside = [c for c in result.chunks
                  if c.start_line <= symbol.end_line and c.end_line >= symbol.start_line]
        assert len(inside) == 1, symbol


def _function(n_lines: int) -> str:
    body = "\n".join(f"    value_{i} = compute({i})  # step {i}" for i in range(n_lines))
    return f"def enormous(x):\n    \"\"\"Does a lot.\"\"\"\n{body}\n    return x\n"


def test_a_5000_line_function_is_split_at_statements_with_context() -> None:
    source = "class Big:\n" + textwrap.indent(_function(5000), "    ")
    result = chunk_file(source, PY)
    parts = [c for c in result.chunks if c.symbol == "enormous"]
    assert len(parts) > 100
    assert all(len(c.text) <= MAX_CHARS for c in parts)
    assert all(c.context == "class Big > method enormous" for c in parts[1:])
    covered = sorted((c.start_line, c.end_line) for c in result.chunks)
    assert covered[0][0] == 1 and covered[-1][1] == source.count("\n")
    for (_, end), (start, _) in itertools.pairwise(covered):
        assert start == end + 1  # no gaps, no overlaps
    lines = source.split("\n")
    assert all(c.text == "\n".join(lines[c.start_line - 1 : c.end_line]) for c in parts)


def test_long_class_is_split_at_its_methods() -> None:
    methods = "\n".join(f"    def method_{i}(self):\n        return {i} * self.factor  # "
                        f"{'x' * 60}\n" for i in range(30))
    source = f"class Wide:\n    \"\"\"Many methods.\"\"\"\n\n{methods}"
    result = chunk_file(source, PY)
    assert len(result.chunks) > 3
    assert all(c.context == "class Wide" for c in result.chunks[1:])
    for symbol in result.symbols[1:]:  # every method inside one chunk
        assert sum(c.start_line <= symbol.start_line and symbol.end_line <= c.end_line
                   for c in result.chunks) == 1


def test_syntax_error_keeps_the_good_definitions() -> None:
    source = "def ok():\n    return 1\n\ndef broken(:\n    pass\n\ndef fine():\n    return 2\n"
    result = chunk_file(source, PY)
    names = {s.name for s in result.symbols}
    assert {"ok", "fine"} <= names
    assert_exact(result, source)


def test_minified_one_line_javascript() -> None:
    body = ";".join(f"function f{i}(a){{return a*{i}}}" for i in range(3000))
    result = chunk_file(body, language_of("app.min.js"))
    assert result.chunks and all(c.start_line == c.end_line == 1 for c in result.chunks)
    assert all(len(c.text) <= MAX_CHARS for c in result.chunks)
    assert len(result.chunks) <= MAX_CHUNKS_PER_FILE


def test_unknown_extension_gets_line_windows() -> None:
    result = chunk_file("alpha\nbeta\n", language_of("notes.xyz"))
    assert result.strategy == "lines" and result.chunks[0].kind == "lines"
    result = chunk_file("a = 1\n", language_of("data.json"))
    assert result.strategy == "lines"


C_HEADER = """\
#ifndef RING_H
#define RING_H
#define RING_MAX 64

/* A fixed-size byte ring. */
typedef struct {
    unsigned char data[RING_MAX];
    int head, tail;
} ring_t;

enum ring_state { RING_EMPTY, RING_FULL };

static inline int ring_size(const ring_t *r) { return r->head - r->tail; }
#endif
"""


def test_a_c_header_is_read_by_the_cpp_grammar_and_keeps_its_definitions() -> None:
    assert language_of("include/ring.h").name == "cpp"  # type: ignore[union-attr]
    result = chunk_file(C_HEADER, language_of("include/ring.h"))
    assert result.strategy == "definitions"
    found = {(s.name, s.kind, s.start_line) for s in result.symbols}
    assert {("RING_MAX", "constant", 3), ("ring_t", "struct", 5),
            ("ring_state", "enum", 11), ("ring_size", "function", 13)} <= found
    assert_exact(result, C_HEADER)


def test_parse_timeout_falls_back_to_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("semlith.ingest.parse.PARSE_SECONDS", -1.0)
    result = chunk_file("def f():\n    return 1\n", PY)
    assert result.strategy.startswith("lines (parse took over")
    assert result.chunks[0].text.startswith("def f")


def test_markdown_is_cut_at_headings_with_heading_paths() -> None:
    section = "Some words about it. " * 20
    source = (f"# Guide\n\nIntro.\n\n## Install\n\n{section}\n\n### On macOS\n\n{section}\n\n"
              f"```sh\n# not a heading\n```\n\n## Use\n\n{section}\n")
    result = chunk_file(source, language_of("guide.md"))
    assert result.strategy == "headings"
    by_symbol = {c.symbol: c for c in result.chunks}
    assert by_symbol["On macOS"].context == "Guide > Install"
    assert by_symbol["Use"].text.startswith("## Use")
    assert "not a heading" not in by_symbol  # fenced code is not a heading
    assert_exact(result, source)


def test_parsing_needs_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for proxy in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        monkeypatch.setenv(proxy, "http://127.0.0.1:9")  # any download attempt would fail
    assert chunk_file("def f():\n    return 1\n", PY).strategy == "definitions"
    assert os.environ["HF_HUB_OFFLINE"] == "1"


def test_languages_with_definitions() -> None:
    assert has_definitions(PY) and not has_definitions(language_of("x.txt"))


def test_absurdly_deep_nesting_falls_back_to_lines() -> None:
    depth = 1200
    source = "".join("    " * i + f"def f{i}():\n" for i in range(depth))
    source += "    " * depth + "pass\n"
    result = chunk_file(source, PY)
    assert result.chunks
    assert result.strategy in {"definitions", "lines (nested too deep)"} or \
        result.strategy.startswith("lines (")


def _method(name: str, lines: int) -> str:
    body = "\n".join(f"        self.headers[{i}] = builtin_str(length + {i})  # step {i}"
                     for i in range(lines))
    return f'    def {name}(self, body):\n        """Prepare {name}."""\n{body}\n'


def test_a_chunk_of_one_method_is_labelled_with_the_method_not_its_class() -> None:
    # Issue #21: a method packed with the blank line before it was shown as its class.
    source = "class PreparedRequest:\n    \"\"\"A request.\"\"\"\n\n" + "\n".join(
        _method(name, 12) for name in ("prepare_body", "prepare_content_length",
                                       "prepare_auth"))
    result = chunk_file(source, PY)
    methods = {s.name: s for s in result.symbols if s.kind == "method"}
    assert len(methods) == 3
    for chunk in result.chunks:
        inside = [s for s in methods.values()
                  if s.start_line <= chunk.start_line and chunk.end_line <= s.end_line + 1]
        opens_class = chunk.start_line == 1
        assert (chunk.symbol, chunk.kind) == (("PreparedRequest", "class") if opens_class
                                              else (inside[0].name, "method")), chunk
    assert any(c.symbol == "prepare_content_length" for c in result.chunks)


GO_PACKED = """package cobra

func isFlagArg(arg string) bool {
	return len(arg) >= 2 && arg[0] == '-'
}

// Find the target command given the args and command tree.
func (c *Command) Find(args []string) (*Command, []string, error) {
""" + "\n".join(f"\tnext{i} := c.findNext(args[{i}])  // step {i}" for i in range(12)) + """
	return c, args, nil
}
"""


def test_a_small_definition_packed_before_a_long_one_is_not_its_label() -> None:
    # A three-line function packed into the chunk of the 16-line one after it named that
    # chunk, so a hit on `Find` was shown as `isFlagArg`. The keyword index still counts
    # the first one's name (a ranking change of its own: docs/performance.md).
    result = chunk_file(GO_PACKED, language_of("command.go"))
    assert [(c.start_line, c.symbol, c.kind, c.keyword_symbol()) for c in result.chunks] \
        == [(1, "Find", "method", "isFlagArg")]
    assert {s.name: s.chunk for s in result.symbols} == {"isFlagArg": 0, "Find": 0}
    # Several small ones, none most of the chunk: the first names it, as before.
    small = "package x\n\n" + "\n\n".join(f"func f{i}() int {{\n\treturn {i}\n}}"
                                            for i in range(4))
    assert [(c.symbol, c.keyword_symbol()) for c in chunk_file(small, language_of("x.go")).chunks] \
        == [("f0", "f0")]


FORTY_TWO = '''
import os


# Retries the request: the server may drop the first connection (see the issue).
@retrying(times=3)
def fetch(session, url, *, timeout=10.0, headers=None):
    """Fetch `url` through `session`, following at most five redirects."""
''' + "\n".join(f"    part_{i} = get(url, {i})" for i in range(37)) + '''
    return response_0


def after():
    return 1
'''


def test_a_42_line_function_is_two_parts_or_one_chunk_with_its_comment() -> None:
    lines = lines_of(FORTY_TWO)
    result = chunked(FORTY_TWO)
    fetch = next(s for s in result.symbols if s.name == "fetch")
    assert fetch.end_line - fetch.start_line + 1 == 42
    assert fetch.start_line == 4  # the comment above the decorator
    assert MAX_CHARS < sum(len(line) + 1 for line in lines[3:45]) <= 2 * MAX_CHARS
    # By default (WHOLE_CHARS, measured) it is split between statements: two parts, not
    # three, each labelled with the function.
    parts = [c for c in result.chunks
             if c.start_line <= fetch.end_line and c.end_line >= fetch.start_line]
    assert len(parts) == 2, parts
    assert parts[0].start_line <= fetch.start_line and parts[-1].end_line == fetch.end_line
    assert {(c.symbol, c.kind) for c in parts} == {("fetch", "function")}
    # Allowed to stay whole, it is one chunk from its comment to its last line.
    whole = chunk_file(textwrap.dedent(FORTY_TWO).lstrip("\n"), PY, whole_chars=3 * MAX_CHARS)
    holding = [c for c in whole.chunks
               if c.start_line <= fetch.end_line and c.end_line >= fetch.start_line]
    assert len(holding) == 1, holding
    assert holding[0].start_line <= fetch.start_line and holding[0].end_line == fetch.end_line
    assert (holding[0].symbol, holding[0].kind) == ("fetch", "function")


SEND = '''
class Session:
    def send(
        self,
        request,  # a PreparedRequest
        *,
        stream=False,
        **kwargs,
    ) -> Response:
        """Send a given PreparedRequest."""
        return self.adapter.send(request, stream=stream, **kwargs)
'''


def test_a_multi_line_signature_is_recorded_whole_on_one_line() -> None:
    result = chunked(SEND)
    send = next(s for s in result.symbols if s.name == "send")
    assert send.signature == "def send(self, request, *, stream=False, **kwargs) -> Response:"
    assert next(s for s in result.symbols if s.name == "Session").signature == "class Session:"


def test_a_huge_signature_is_capped() -> None:
    params = ", ".join(f"parameter_{i}=None" for i in range(100))
    result = chunk_file(f"def configure({params}):\n    return 1\n", PY)
    signature = result.symbols[0].signature
    assert len(signature) == SIGNATURE_CHARS and signature.startswith("def configure(")


def test_a_namespace_wrapping_one_class_shows_the_class() -> None:
    """A small C# file is one chunk, `namespace X { class Article ... }`: it is shown as
    the class (the innermost definition that is most of it), not the namespace; the
    keyword index keeps the namespace's name it counted before."""
    source = ("namespace Shop.Models\n{\n    public class Article\n    {\n"
              "        public string Name;\n        public decimal Price;\n    }\n}\n")
    (chunk,) = chunk_file(source, language_of("Article.cs")).chunks
    assert (chunk.kind, chunk.symbol, chunk.keyword_symbol()) == (
        "class", "Article", "Shop.Models")
    two = chunk_file(source.replace("    }\n}", "    }\n    public class Basket { }\n}"),
                     language_of("Shop.cs")).chunks
    assert [(c.kind, c.symbol) for c in two] == [("class", "Article")]  # most of its lines
    nested = ("namespace outer {\nnamespace inner {\nstruct formatter {\n  int width = 0;\n"
              "  int fill = 1;\n};\n}  // namespace inner\n}  // namespace outer\n")
    assert [(c.kind, c.symbol) for c in chunk_file(nested, language_of("f.h")).chunks] == [
        ("struct", "formatter")]
