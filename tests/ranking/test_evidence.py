"""A long question or a traceback read as evidence (issue #46): one test per trace shape."""

from __future__ import annotations

from semlith.ranking.evidence import (
    LONG_WORDS,
    MAX_PIECES,
    PIECE_WORDS,
    Frame,
    read_evidence,
)

PYTHON = '''Saving a session fails after the upgrade.

Traceback (most recent call last):
  File "/srv/shop/app.py", line 12, in <module>
    main()
  File "/srv/shop/venv/lib/python3.11/site-packages/flask/sessions.py", line 301, in save_session
    response.set_cookie(name, val)
  File "src/shop/cart.py", line 88, in CartSession.serialise
    return json.dumps(self.items)
TypeError: Object of type Decimal is not JSON serializable
'''

JAVA = '''Exception in thread "main" java.lang.IllegalStateException: cart is closed
\tat com.shop.cart.Cart.add(Cart.java:42)
\tat com.shop.api.CartController.post(CartController.java:17)
\tat java.base/java.lang.Thread.run(Thread.java:833)
'''

JAVASCRIPT = '''TypeError: Cannot read properties of undefined (reading 'id')
    at handle (/srv/app/src/router.js:12:5)
    at async Layer.run (file:///srv/app/lib/layer.mjs:30:11)
    at /srv/app/index.js:3:1
'''

GO = '''panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a5b2c]

goroutine 1 [running]:
main.(*Server).Handle(0x0, 0xc000010000)
\t/home/u/app/server.go:42 +0x1d
main.main()
\t/home/u/app/main.go:9 +0x25
exit status 2
'''

RUST = '''thread 'main' panicked at src/parser.rs:118:14:
called `Option::unwrap()` on a `None` value
stack backtrace:
   0: rust_begin_unwind
   1: core::panicking::panic_fmt
   2: mycrate::parser::Parser::expect
             at ./src/parser.rs:118:14
   3: mycrate::main
             at ./src/main.rs:7:5
'''


def test_an_ordinary_question_is_not_evidence() -> None:
    assert read_evidence("where are session cookies signed") is None
    assert read_evidence("how does `Session.send` retry") is None
    assert read_evidence(" ".join(["word"] * LONG_WORDS)) is None


def test_a_python_traceback() -> None:
    found = read_evidence(PYTHON)
    assert found is not None
    assert found.frames == (
        Frame("/srv/shop/app.py", 12, "<module>"),
        Frame("/srv/shop/venv/lib/python3.11/site-packages/flask/sessions.py", 301,
              "save_session"),
        Frame("src/shop/cart.py", 88, "CartSession.serialise"))
    assert found.paths[0] == "src/shop/cart.py"  # innermost first: where it broke
    assert "CartSession.serialise" in found.names and "save_session" in found.names
    assert found.errors == ("TypeError: Object of type Decimal is not JSON serializable",)
    assert found.prose and "Saving a session fails" in found.prose[0]
    assert "File" not in found.prose[0]


def test_a_java_trace() -> None:
    found = read_evidence(JAVA)
    assert found is not None
    assert found.frames[:2] == (Frame("com/shop/cart/Cart.java", 42, "Cart.add"),
                                Frame("com/shop/api/CartController.java", 17,
                                      "CartController.post"))
    assert "Cart.add" in found.names
    assert "com/shop/cart/Cart.java" in found.paths


def test_a_javascript_trace() -> None:
    found = read_evidence(JAVASCRIPT)
    assert found is not None
    assert found.frames == (Frame("/srv/app/src/router.js", 12, "handle"),
                            Frame("/srv/app/lib/layer.mjs", 30, "Layer.run"),
                            Frame("/srv/app/index.js", 3, ""))
    assert found.errors[0].startswith("TypeError: Cannot read properties")
    assert {"handle", "Layer.run"} <= set(found.names)


def test_a_go_panic() -> None:
    found = read_evidence(GO)
    assert found is not None
    assert found.frames == (Frame("/home/u/app/server.go", 42, "main.(*Server).Handle"),
                            Frame("/home/u/app/main.go", 9, "main.main"))
    assert found.errors[0].startswith("panic: runtime error")
    assert found.paths[:2] == ("/home/u/app/main.go", "/home/u/app/server.go")


def test_a_rust_panic_and_backtrace() -> None:
    found = read_evidence(RUST)
    assert found is not None
    assert Frame("src/parser.rs", 118, "") in found.frames
    assert Frame("src/parser.rs", 118, "mycrate::parser::Parser::expect") in found.frames
    assert Frame("src/main.rs", 7, "mycrate::main") in found.frames
    assert "mycrate::parser::Parser::expect" in found.names
    assert "src/parser.rs" in found.paths


def test_a_long_issue_without_a_trace_gives_names_paths_and_pieces() -> None:
    issue = ("The `Session.merge_environment_settings()` method ignores `REQUESTS_CA_BUNDLE` "
             "when verify is set. See requests/sessions.py and the adapters. " * 3
             + "\n\n" + " ".join(f"word{i}" for i in range(PIECE_WORDS * 6)))
    found = read_evidence(issue)
    assert found is not None and found.frames == ()
    assert "Session.merge_environment_settings" in found.names
    assert "REQUESTS_CA_BUNDLE" not in found.paths
    assert found.paths == ("requests/sessions.py",)
    assert len(found.prose) == MAX_PIECES
    assert all(len(p.split()) <= PIECE_WORDS for p in found.prose)
    assert found.prose[0].startswith("The `Session.merge_environment_settings()`")


def test_an_issue_asks_for_no_role_and_names_only_what_it_points_at() -> None:
    from semlith.base.roles import Role
    from semlith.ranking.query import analyse

    issue = ("The docs say `Blueprint.register` keeps the url prefix, and the tests for "
             "translations pass, but after the release a nested blueprint loses it:\n\n"
             + PYTHON)
    read = analyse(issue)
    assert read.evidence is not None and read.asks == frozenset()
    assert not read.wants(Role.TEST) and not read.wants(Role.DOCS)
    named = {i.text for i in read.identifiers}
    assert {"Blueprint.register", "CartSession.serialise", "save_session"} <= named
    assert "docs" not in named and "translations" not in named
    short = analyse("where are the tests for translations")  # a question still asks
    assert short.evidence is None and Role.TEST in short.asks


def test_a_templates_environment_heading_and_code_comments_name_no_code() -> None:
    """`#### Output of xr.show_versions()`, `**Environment**`, `### Versions`: the commands
    a template asks to run print versions; a comment in the example says what to paste.
    The example's own calls and a heading about the fault still count."""
    issue = ("Merging two datasets with `Dataset.merge` drops the attributes. " * 6
             + "\n\n### Problem in `combine_by_coords`\n\n"
             + "#### Output of ``xr.show_versions()``\n\n**Environment** `pip_freeze()`\n"
             + "### Versions: `print_versions()`\n\n"
             + "```python\n# Paste the output of report_env() here\nds.merge(other)\n```\n")
    found = read_evidence(issue)
    assert found is not None
    assert {"Dataset.merge", "combine_by_coords", "ds.merge"} <= set(found.names)
    assert not {"xr.show_versions", "pip_freeze", "print_versions", "report_env"} \
        & set(found.names)
