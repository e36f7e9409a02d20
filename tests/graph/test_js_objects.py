"""`this` in prototype-style JavaScript (issue #22): inside `obj.m = function () {}`,
`Foo.prototype.m = ...` and an object literal's methods `this` is that object, so
`this.n()` is the object's own `n` when the file defines it; same-named members of two
objects never stand for each other, and a bare name inside a member is not a member."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from semlith.graph.resolve import Resolver
from semlith.graph.status import Status
from semlith.store import Store
from tests.graph_util import build

FILES = {
    "lib/app.js": """var app = exports = module.exports = {};

app.init = function init() {
  this.set('env', 'dev');
  this.vary('x');
};

/**
 * Assign `setting` to `value`.
 */

app.set = function set(setting, value) {
  return value;
};

app.handle = function handle() {
  app.set('y', 2);
  return helper();
};

function helper() {
  return 1;
}
""",
    "lib/express.js": """var proto = require('./app');

function createApplication() {
  return proto.init();
}

module.exports = createApplication;
""",
    "lib/response.js": """var http = require('node:http');
var vary = require('vary');
var res = Object.create(http.ServerResponse.prototype);
module.exports = res;

res.set = function set(field) {
  return field;
};

res.send = function send(body) {
  this.set('Content-Type');
  var self = this;
  return self.json(body);
};

res.json = function json(obj) {
  return this.send(obj);
};

res.vary = function (field) {
  return vary(this, field);
};
""",
    "lib/view.js": """function View(name) {
  this.path = this.lookup(name);
}

View.prototype.lookup = function lookup(name) {
  return this.resolve(name);
};

View.prototype.resolve = function resolve(name) {
  return name;
};

module.exports = View;
""",
    "lib/api.js": """const api = {
  get(url) {
    return this.request('GET', url);
  },
  request(method, url) {
    return method + url;
  },
};

const other = {
  get(url) {
    return this.request(url);
  },
  fetch() {
    return this.get('/');
  },
};

module.exports = { api, other };
""",
    "src/store.ts": """export default {
  add(item: string): number {
    return this.size() + item.length;
  },
  size(): number {
    return 0;
  },
};
""",
}

Found = tuple[str, int, Status] | None


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    opened = build(tmp_path_factory.mktemp("js") / "repo", FILES)
    yield opened
    opened.close()


def resolved(store: Store, path: str) -> dict[tuple[str, int], Found]:
    """(written call, line) -> (qualname, definition line, status) when settled,
    ("", 0, AMBIGUOUS) when not, None when it is no edge."""
    resolver = Resolver(store.graph)
    file_id = resolver.file_id(path)
    assert file_id is not None
    out: dict[tuple[str, int], Found] = {}
    for call in store.graph.file_edges(file_id).calls:
        res = resolver.resolve(file_id, call)
        written = f"{call.receiver}.{call.name}" if call.receiver else call.name
        if res is None:
            out[(written, call.line)] = None
        elif res.settled:
            out[(written, call.line)] = (res.targets[0].qualname, res.targets[0].line,
                                         res.status)
        else:
            out[(written, call.line)] = ("", 0, res.status)
    return out


def test_this_in_members_assigned_to_an_object(store: Store) -> None:
    here = Status.EXTRACTED
    found = resolved(store, "lib/app.js")
    assert found[("this.set", 4)] == ("app.set", 12, here)  # its own line, not the comment's
    assert found[("app.set", 17)] == ("app.set", 12, here)  # the object named, not `this`
    assert found[("helper", 18)] == ("helper", 21, here)
    # app has no `vary`: response.js's `res.vary` is another object's, never settled
    assert found[("this.vary", 5)] in (None, ("", 0, Status.AMBIGUOUS))


def test_same_named_members_of_two_objects_do_not_cross(store: Store) -> None:
    here = Status.EXTRACTED
    found = resolved(store, "lib/response.js")
    assert found[("this.set", 11)] == ("res.set", 6, here)  # not app.set
    assert found[("self.json", 13)] == ("res.json", 16, here)
    assert found[("this.send", 17)] == ("res.send", 10, here)
    # a bare `vary` inside `res.vary` is the imported package, not the member
    assert found[("vary", 21)] is None


def test_this_in_prototype_members_and_their_constructor(store: Store) -> None:
    here = Status.EXTRACTED
    found = resolved(store, "lib/view.js")
    assert found[("this.lookup", 2)] == ("View.lookup", 5, here)
    assert found[("this.resolve", 6)] == ("View.resolve", 9, here)


def test_this_in_object_literal_methods(store: Store) -> None:
    here = Status.EXTRACTED
    found = resolved(store, "lib/api.js")
    assert found[("this.request", 3)] == ("request", 5, here)
    assert found[("this.get", 15)] == ("get", 11, here)  # other's get, not api's
    # other has no `request`: api's is another object's and is not settled on
    assert found[("this.request", 12)] in (None, ("", 0, Status.AMBIGUOUS))
    ts = resolved(store, "src/store.ts")
    assert ts[("this.size", 3)] == ("size", 5, here)


def test_a_member_of_the_object_another_module_assigns_to_is_an_edge(store: Store) -> None:
    # `proto.init()`, proto being app.js's `app`: not a call out of the corpus
    found = resolved(store, "lib/express.js")
    assert found[("proto.init", 4)] == ("app.init", 3, Status.RESOLVED)
