"""Issue #26: files that stalled indexing, and each per-file stage bounded: generated and
minified files skipped, parses and plans past their deadline cut into line windows, and
an HTML page cut at its size limit without a stray partial tag."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import TypeVar

import pytest

from semlith.base.languages import language_of
from semlith.base.settings import Settings
from semlith.ingest import parse as parsing
from semlith.ingest import plan
from semlith.ingest.chunk import MAX_CHARS, MAX_CHUNKS_PER_FILE, Chunked, chunk_file
from semlith.ingest.extract import MAX_TEXT_CHARS, extract_text
from semlith.ingest.generated import GENERATED_MIN_BYTES, Generated, check_generated
from semlith.local import LocalLibrary
from semlith.store import Store
from tests.conftest import HashEmbedder, RecordingFactory
from tests.hostile_files import GENERATED_MARKER, generated_python, minified_bundle
from tests.watch_util import Watched, eventually

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample"
PY, JS = language_of("x.py"), language_of("x.js")
# A guard against a stall, not a timing assertion: the files below take a few seconds.
HANG_SECONDS = 60.0
T = TypeVar("T")


def within(seconds: float, func: Callable[[], T]) -> T:
    """`func()`, failing the test if it is still running after `seconds` (a daemon thread
    is left to spin: what a stalled run does)."""
    done: list[T] = []
    failed: list[BaseException] = []

    def target() -> None:
        try:
            done.append(func())
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            failed.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"still running after {seconds:.0f} s: the run is stalled (issue #26)")
    if failed:
        raise failed[0]
    return done[0]


def assert_bounded(result: Chunked) -> None:
    assert 0 < len(result.chunks) <= MAX_CHUNKS_PER_FILE
    assert all(len(c.text) <= MAX_CHARS for c in result.chunks)


# -- chunking: every stage ends --------------------------------------------------------


@pytest.mark.slow
def test_a_module_of_40000_functions_is_cut_within_bounds() -> None:
    text = generated_python(marker=False)  # chunk_file does not judge: the indexer does
    result = within(HANG_SECONDS, lambda: chunk_file(text, PY))
    assert_bounded(result)
    # Cut at its definitions, or (on a slow machine) into line windows after the deadline.
    assert result.strategy == "definitions" or "took over" in result.strategy, result.strategy
    if result.strategy == "definitions":
        assert result.chunks[0].text.startswith("def handler_00000(request, ctx):")
        held = [s for s in result.symbols if s.chunk >= 0]
        assert len(held) > 1000
        for symbol in held:
            chunk = result.chunks[symbol.chunk]
            assert chunk.start_line <= symbol.start_line <= chunk.end_line


@pytest.mark.slow
def test_a_one_line_minified_bundle_is_cut_within_bounds() -> None:
    bundle = minified_bundle()
    assert bundle.count("\n") == 0 and len(bundle) > 3_800_000
    assert_bounded(within(HANG_SECONDS, lambda: chunk_file(bundle, JS)))


def test_a_deadline_passing_between_parse_and_names_falls_back_instead_of_spinning(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's mechanism: once the deadline passed, the old read callback returned b""
    and `Node.text` called it again and again without end."""
    now = [0.0]
    parse = parsing.parse_bytes

    def parse_then_late(*args: object) -> object:
        tree = parse(*args)  # type: ignore[arg-type]
        now[0] = 1e9  # the deadline passes right after the parse
        return tree

    monkeypatch.setattr(parsing, "time", SimpleNamespace(monotonic=lambda: now[0]))
    monkeypatch.setattr(parsing, "parse_bytes", parse_then_late)
    result = within(HANG_SECONDS, lambda: chunk_file("def f():\n    return 1\n", PY))
    assert result.strategy == "lines (definitions took over 3 s)"
    assert result.chunks[0].text == "def f():\n    return 1\n"


@pytest.mark.parametrize(("name", "text"), [
    ("x.py", "def f():\n    return 1\n\n\nclass C:\n    pass\n"),
    ("guide.md", "# Guide\n\nIntro.\n\n## Install\n\nSteps.\n"),
])
def test_a_plan_past_its_deadline_falls_back_to_line_windows(
        monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> None:
    monkeypatch.setattr("semlith.ingest.plan.PLAN_SECONDS", -1.0)
    result = chunk_file(text, language_of(name))
    assert result.strategy.startswith("lines (planning took over")
    assert [c.text for c in result.chunks] == [text]


def test_nested_headings_end_before_the_next_of_their_level() -> None:
    body = "Words about this part. " * 25  # one section a chunk
    source = "".join(f"{h}\n\n{body}\n\n" for h in
                     ("# A", "## B", "### C", "## D", "# E"))
    result = chunk_file(source, language_of("doc.md"))
    assert result.strategy == "headings"
    assert [(c.symbol, c.context, c.start_line, c.end_line) for c in result.chunks] == [
        ("A", "A", 1, 3), ("B", "A > B", 5, 7), ("C", "A > B", 9, 11), ("D", "A", 13, 15),
        ("E", "", 17, 19)]


# -- generated and minified files -------------------------------------------------------


def padded(head: str, size: int, line: str = "x = 1\n") -> bytes:
    """`head`, then ordinary lines up to `size` bytes."""
    return (head + line * ((size - len(head)) // len(line) + 1)).encode()[:size]


@pytest.mark.parametrize(("name", "head"), [
    ("gen/handlers.py", GENERATED_MARKER),
    ("api/client.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\n"),
    ("x_pb2.py", "# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler.  "
                 "DO NOT EDIT!\n"),
    ("gen/types.ts", "/**\n * Copyright 2024 Example.\n *\n * @generated\n */\n"),
    ("src/commands.def", "/* Automatically generated by generate-command-code.py, "
                         "do not edit. */\n"),
    ("types/__init__.py", '"""Wire models for protocol 2025-11-25. Generated; do not edit."""\n'),
])
def test_a_marked_generated_file_is_skipped_from_64_kib(name: str, head: str) -> None:
    with pytest.raises(Generated, match="marked"):
        check_generated(name, padded(head, GENERATED_MIN_BYTES))
    check_generated(name, padded(head, GENERATED_MIN_BYTES - 1))  # small: indexed


@pytest.mark.parametrize("head", [
    '__version__ = "2.4.0"  # DO NOT EDIT THIS LINE MANUALLY. LET bump2version DO IT\n',
    "# Tokens generated by the lexer are kept in order.\n",
    "x = 1\n" * 400 + "# @generated\n",  # past the first 2 KiB
])
def test_files_without_a_marker_in_their_head_are_not_generated(head: str) -> None:
    check_generated("big.py", padded(head, 2 * GENERATED_MIN_BYTES))


def test_a_minified_shape_is_skipped_and_a_long_line_in_source_is_not() -> None:
    with pytest.raises(Generated, match="minified"):
        check_generated("app.min.js", minified_bundle(5_000).encode())
    with pytest.raises(Generated, match="minified"):
        check_generated("data.json", b'{"k": "' + b"v" * 5000 + b'"}')
    check_generated("small.json", b'{"k": "' + b"v" * 3000 + b'"}')  # under 4,096
    one_long_line = b"BLOB = '" + b"A" * 20_000 + b"'\n" + b"def f():\n    pass\n" * 1200
    check_generated("blob.py", one_long_line)  # 20 KB line, 19 bytes a line on average
    just_under = (b"y" * 4_096 + b"\n") + (b"z" * 929 + b"\n") * 30
    check_generated("wide.csv", just_under)  # 999.9 bytes a line on average


def test_prose_and_documents_are_never_judged() -> None:
    check_generated("page.html", b"<p>" + b"words " * 5000 + b"</p>")
    check_generated("notes.md", b"<!-- @generated DO NOT EDIT -->\n" + b"long prose " * 9000)
    check_generated("table.csv.txt", b"a," * 10_000)


def test_ordinary_large_source_just_under_the_thresholds_is_cut_at_definitions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # What is measured here is the size thresholds, not the clock: on a loaded machine
    # the 740 KB module can take longer than the parse and plan deadlines.
    monkeypatch.setattr(parsing, "PARSE_SECONDS", 120.0)
    monkeypatch.setattr(plan, "PLAN_SECONDS", 120.0)
    marked = padded(GENERATED_MARKER, GENERATED_MIN_BYTES - 1,
                    "def f(x):\n    return x + 1\n\n").decode()
    check_generated("gen/small.py", marked.encode())
    assert chunk_file(marked, PY).strategy == "definitions"
    module = generated_python(12_000, marker=False)  # ~740 KB of ordinary Python
    check_generated("big.py", module.encode())
    result = chunk_file(module, PY)
    assert result.strategy == "definitions"
    assert result.chunks[1].text.startswith("def handler_")


# -- the indexer and the watcher --------------------------------------------------------


def hostile_tree(root: Path) -> None:
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    (root / "gen").mkdir()
    (root / "gen" / "handlers.py").write_text(generated_python())
    (root / "gen" / "unmarked.py").write_text(generated_python(marker=False))
    (root / "static").mkdir()
    (root / "static" / "app.min.js").write_text(minified_bundle())


def search(settings: Settings, root: Path, query: str) -> list[str]:
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    return [h.path for h in library.search(query, k=5).hits]


@pytest.mark.slow
def test_index_skips_generated_and_minified_files_and_bounds_the_rest(
        tmp_path: Path, settings: Settings) -> None:
    root = tmp_path / "proj"
    hostile_tree(root)
    library = LocalLibrary(settings, embedder_factory=RecordingFactory())
    report = within(HANG_SECONDS, lambda: library.index([str(root)]))
    assert report.complete and report.indexed == 10  # the 9 sample files and unmarked.py
    assert search(settings, root, "exponential backoff jitter")[0] == "net/retry.py"
    skipped = {s.path: s for s in library.skipped()}
    assert skipped["gen/handlers.py"].reason == "generated"
    assert skipped["gen/handlers.py"].detail.startswith("marked '@generated'")
    assert skipped["static/app.min.js"].reason == "generated"
    assert skipped["static/app.min.js"].detail.startswith("minified: 3,900,030 bytes a line")
    # Not marked: indexed, bounded by the chunk cap and reported as truncated.
    assert report.truncated == ["gen/unmarked.py"]
    store = Store.open(root / ".semlith", settings=settings)
    unmarked = store.catalog.file("gen/unmarked.py")
    assert unmarked is not None and len(store.catalog.chunk_rows(unmarked.id)) \
        == MAX_CHUNKS_PER_FILE
    store.close()


def test_a_skipped_generated_file_is_read_again_only_once_it_changes(
        tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    bundle = root / "web" / "vendor.min.js"
    bundle.write_text(minified_bundle(50_000))
    library = LocalLibrary(settings, embedder_factory=RecordingFactory())
    assert library.index([str(root)]).skipped == 1
    judged: list[str] = []
    monkeypatch.setattr("semlith.index.cutting.check_generated",
                        lambda rel, data, **kw: (judged.append(rel),
                                                 check_generated(rel, data, **kw))[1])
    again = library.index([str(root)])
    assert (again.unchanged, again.skipped, judged) == (9, 1, [])  # not even read
    bundle.write_text("function vendorMerge(a, b) {\n  return Object.assign(a, b);\n}\n")
    after = library.index([str(root)])
    assert (after.indexed, judged) == (1, ["web/vendor.min.js"])
    assert "web/vendor.min.js" not in {s.path for s in library.skipped()}
    assert search(settings, root, "vendorMerge")[0] == "web/vendor.min.js"


def test_files_skipped_lists_generated_files(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.cli_util import run

    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    (root / "app.min.js").write_text(minified_bundle(20_000))
    monkeypatch.chdir(root)
    assert run("index", "--quiet").exit_code == 0
    listed = run("files", "--skipped").output.splitlines()
    assert "app.min.js\tgenerated (minified: 20,074 bytes a line on average, the longest " \
        "20,074)" in listed


def test_the_watcher_skips_a_bundle_and_indexes_the_file_saved_beside_it(
        tmp_path: Path, settings: Settings) -> None:
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    watched = Watched(root, None, settings)
    watched.watcher.start(catch_up=True)
    try:
        eventually(lambda: watched.has("net/retry.py"))
        (root / "web" / "app.min.js").write_text(minified_bundle())
        (root / "web" / "beside.js").write_text("function zanzibarBeside() {}\n")
        eventually(lambda: watched.has("web/beside.js"), timeout=HANG_SECONDS)
        eventually(lambda: "web/app.min.js" in watched.store.catalog.skipped(),
                   timeout=HANG_SECONDS)
        assert watched.watcher.state.last_error is None
        assert watched.store.catalog.skipped()["web/app.min.js"].reason == "generated"
    finally:
        watched.close()


# -- HTML cut at the size limit (issue #26, low) ---------------------------------------


@pytest.mark.slow
def test_an_html_page_cut_at_the_size_limit_ends_at_a_tag_boundary() -> None:
    markup = ("<br>" * 24 + "\n") * (MAX_TEXT_CHARS // 100)  # no text, many lines
    tail = "<p>last words</p>\n<p>beyond the limit</p>\n"
    pad = MAX_TEXT_CHARS - len(markup) - len("<p>last words</")
    page = markup + "<!--" + " " * (pad - 7) + "-->" + tail
    assert page[:MAX_TEXT_CHARS].endswith("last words</")  # the cut lands inside "</p>"
    text = extract_text("big.html", page.encode())
    assert text.rstrip().endswith("last words")
    last = chunk_file(text, language_of("big.html")).chunks[-1]
    assert last.text.endswith("last words"), last.text[-40:]


@pytest.mark.parametrize("end", ["</", "<di", "<a href='x", "<!-- note", "<"])
def test_html_ending_inside_a_tag_drops_the_partial_tag(end: str) -> None:
    assert extract_text("p.html", f"<p>one</p>\n<p>two{end}".encode()) == " one\n two"


def test_html_text_with_a_bare_angle_bracket_keeps_it() -> None:
    assert extract_text("p.html", b"<p>a < b</p>\nif x <3") == " a < b\nif x <3"
