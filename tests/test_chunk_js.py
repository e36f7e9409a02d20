"""JavaScript and TypeScript as Express and its kind write them (issue #21): JSDoc blocks a
blank line above their function, members assigned to objects and prototypes, named
function expressions handed to a call. The same query text serves .js, .ts and .tsx."""

from __future__ import annotations

import pytest

from semlith.ingest.chunk import Chunked, chunk_file
from semlith.languages import language_of

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
