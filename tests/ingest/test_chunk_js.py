"""JavaScript and TypeScript as Express and its kind write them (issue #21): JSDoc blocks a
blank line above their function, members assigned to objects and prototypes, named
function expressions handed to a call. The same query text serves .js, .ts and .tsx."""

from __future__ import annotations

import pytest

from semlith.base.languages import language_of
from semlith.ingest.chunk import Chunked, chunk_file

EXTENSIONS = ["js", "ts", "tsx"]

MEMBERS = """\
'use strict';

/**
 * Request prototype.
 * @public
 */

var req = Object.create(http.IncomingMessage.prototype);

/**
 * Handle a request: run the stack until a layer answers.
 */

proto.handle = function handle(req, res, out) {
  return out();
};

/** Render with the engine of the view's extension. */
Foo.prototype.render = function (name,
                                 options) {
  return this.engine(name, options);
};

exports.compile = function (text) { return text; };
module.exports.parse = (text) => JSON.parse(text);

req.get =
req.header = function header(name) {
  return this.headers[name.toLowerCase()];
};

/**
 * Return the remote address from the trusted proxy.
 * @public
 */

defineGetter(req, 'ip', function ip() {
  return proxyaddr(this, this.app.get('trust proxy fn'));
});

(function () {
  Widget.prototype.paint = function paint() {
    return 1;
  };
  handlers.ready = function ready() {};
})();

function send(xhr) {
  xhr.onload = function onload() {};
  list.forEach(function each(item) { return item; });
}
"""


def chunked(source: str, extension: str) -> Chunked:
    return chunk_file(source, language_of(f"request.{extension}"))


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_members_and_named_function_expressions_are_definitions(extension: str) -> None:
    found = {(s.qualname, s.name, s.kind) for s in chunked(MEMBERS, extension).symbols}
    assert found == {
        ("proto.handle", "handle", "method"),
        ("Foo.render", "render", "method"),  # `.prototype` is not part of the name
        ("compile", "compile", "function"),  # `exports.x` is the module's own function
        ("parse", "parse", "function"),
        ("req.get", "get", "method"),  # a chained assignment: its first member
        ("ip", "ip", "function"),  # `semlith symbol ip` finds it
        ("Widget.paint", "paint", "method"),  # a prototype member inside a wrapper
        ("send", "send", "function"),  # not the callbacks it installs
    }


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_a_jsdoc_a_blank_line_above_stays_with_its_function(extension: str) -> None:
    lines = MEMBERS.split("\n")
    result = chunked(MEMBERS, extension)
    symbols = {s.qualname: s for s in result.symbols}
    for qualname, doc in (("proto.handle", "/**\n * Handle a request"),
                          ("ip", "/**\n * Return the remote address")):
        symbol = symbols[qualname]
        assert "\n".join(lines[symbol.start_line - 1 : symbol.start_line + 1]).startswith(doc)
        holder = result.chunks[symbol.chunk]
        assert holder.start_line <= symbol.start_line and symbol.end_line <= holder.end_line
    # A JSDoc above something that is no definition is left where it is.
    assert all(s.start_line > 7 for s in result.symbols)


def _member(name: str) -> str:
    doc = "\n".join(f" * Line {i} of the documentation of {name}." for i in range(12))
    body = "\n".join(f"  step{i}(this, {i});" for i in range(14))
    return f"/**\n{doc}\n */\n\napp.{name} = function {name}() {{\n{body}\n}};\n"


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_a_long_jsdoc_is_not_glued_to_the_chunk_before(extension: str) -> None:
    # Express: each ~600-character JSDoc ended the previous member's chunk, so that chunk
    # matched the question and took the first slot.
    source = "\n".join(_member(name) for name in ("init", "handle", "route", "render"))
    lines = source.split("\n")
    result = chunked(source, extension)
    assert [s.qualname for s in result.symbols] == ["app.init", "app.handle", "app.route",
                                                    "app.render"]
    for symbol in result.symbols:
        holder = result.chunks[symbol.chunk]
        assert lines[holder.start_line - 1] == "/**", holder
        assert (holder.symbol, holder.kind) == (symbol.name, "method")
    for chunk in result.chunks:
        assert not chunk.text.rstrip().endswith("*/"), chunk


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_a_file_doc_block_is_not_a_functions_doc(extension: str) -> None:
    source = "/**\n * @license MIT\n */\n\nfunction first() {\n  return 1;\n}\n"
    first = chunked(source, extension).symbols[0]
    assert (first.name, first.start_line) == ("first", 5)


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_signatures_run_to_the_body(extension: str) -> None:
    signatures = {s.qualname: s.signature for s in chunked(MEMBERS, extension).symbols}
    assert signatures["proto.handle"] == "proto.handle = function handle(req, res, out)"
    assert signatures["Foo.render"] == "Foo.prototype.render = function (name, options)"
    assert signatures["ip"] == "defineGetter(req, 'ip', function ip()"


BOUND = """\
export const createStore = ((createState) =>
  createState ? build(createState) : build) as CreateStore

export const Button = forwardRef((props, ref) => {
  return render(props, ref);
});

const useBear = create()((set) => ({ bears: 0 }));

const save = debounce(function () {
  return write();
}, 100);

const settings = load(1, 2);

function Panel() {
  const onClick = useCallback(() => toggle(), []);
  return onClick;
}
"""


@pytest.mark.parametrize("extension", EXTENSIONS)
def test_functions_bound_through_a_cast_or_a_call_are_definitions(extension: str) -> None:
    # zustand's `createStore`, its public API, was no definition: `symbol createStore`
    # found only the helpers of the same name in its tests.
    source = BOUND if extension != "js" else BOUND.replace(" as CreateStore", "")
    found = [(s.qualname, s.kind) for s in chunked(source, extension).symbols]
    # A call holding no function is no definition, and inside a function a wrapped
    # callback (`useCallback`) is a value of that function, not one of its own.
    assert found == [("createStore", "function"), ("Button", "function"),
                     ("useBear", "function"), ("save", "function"), ("Panel", "function")]
