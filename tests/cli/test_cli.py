"""The CLI as people run it: exit codes and output, through click's runner."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from tests.cli_util import run

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample"
HIT_KEYS = {"store", "path", "start_line", "end_line", "score", "text", "symbol", "kind",
            "relevance", "line", "changed", "definition", "found"}
# #23 added relevance, #44 line, #45 changed, #46 definition and found


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    monkeypatch.chdir(root)
    return root


def test_index_search_text_and_json(tree: Path) -> None:
    result = run("index", str(tree), "--quiet")
    assert result.exit_code == 0, result.output
    assert "9 indexed, 0 unchanged" in result.output
    text = run("search", "RetryPolicy exponential backoff")
    assert text.exit_code == 0
    assert text.output.splitlines()[0].startswith("net/retry.py:")
    hits = json.loads(run("search", "RetryPolicy", "--json", "-k", "3").output)
    assert hits and all(set(h) == HIT_KEYS for h in hits)
    assert hits[0]["path"] == "net/retry.py" and hits[0]["store"] == "proj"
    assert isinstance(hits[0]["start_line"], int) and hits[0]["end_line"] >= hits[0]["start_line"]


def test_search_from_a_subfolder_finds_the_store_above(tree: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    run("index", "--quiet")
    monkeypatch.chdir(tree / "net")
    assert run("search", "router").exit_code == 0


def test_filters(tree: Path) -> None:
    run("index", "--quiet")
    hits = json.loads(run("search", "token", "--json", "--lang", "go").output)
    assert hits and {h["path"] for h in hits} == {"auth/tokens.go"}
    hits = json.loads(run("search", "token", "--json", "--path", "!auth").output)
    assert all(not h["path"].startswith("auth/") for h in hits)
    nothing = run("search", "token", "--ext", "java")
    assert nothing.exit_code == 1
    assert "select no indexed file" in nothing.output
    assert len(nothing.output.strip().splitlines()) == 1


def test_no_result_exits_1_without_error_text_as_grep_does(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path / "empty")
    assert run("index", "--quiet").exit_code == 0
    text = run("search", "anything")
    assert text.exit_code == 1 and text.output == ""
    as_json = run("search", "anything", "--json")
    assert as_json.exit_code == 1 and json.loads(as_json.output) == []
    assert run("symbol", "Nothing").exit_code == 1


@pytest.mark.parametrize("query", ['"unbalanced', "NEAR(a b", "foo* -bar", "((", "a:b"])
def test_fts_syntax_in_queries(tree: Path, query: str) -> None:
    """FTS5 syntax in a query is inert: found or not (exit 0 or 1), never an error."""
    run("index", "--quiet")
    result = run("search", query)
    assert result.exit_code in (0, 1) and "semlith: error" not in result.output


def test_missing_store_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("search", "anything")
    assert result.exit_code == 1
    assert result.output.startswith("semlith: error: no store indexes ")
    assert "`semlith index DIR` creates one" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_files_skipped_stats_forget(tree: Path) -> None:
    (tree / "blob.bin").write_bytes(b"\x00" * 10)
    run("index", "--quiet")
    listing = run("files").output
    assert "net/retry.py\tindexed" in listing
    skipped = run("files", "--skipped").output
    assert "blob.bin\tbinary" in skipped
    stats = run("stats").output
    assert "(64 dimensions)" in stats and "files      9 (0 pending)" in stats
    info = json.loads(run("stats", "--json").output)
    assert info["files"] == 9
    assert run("forget", "net").output.strip() == "forgot 2 files"
    assert json.loads(run("stats", "--json").output)["files"] == 7


def test_code_cut_as_text_is_listed_with_skips_and_counted_in_stats(tree: Path) -> None:
    from tests.hostile_files import data_table

    (tree / "gen").mkdir()
    (tree / "gen" / "MimeDB.scala").write_text(data_table("scala", 100_000))
    run("index", "--quiet")
    skipped = run("files", "--skipped").output.splitlines()
    assert "gen/MimeDB.scala\ttext (data table: 97% of its lines have one shape)" in skipped
    rows = json.loads(run("files", "--skipped", "--json").output)
    assert {"store": "proj", "path": "gen/MimeDB.scala", "reason": "text",
            "detail": "data table: 97% of its lines have one shape"} in rows
    assert "gen/MimeDB.scala\tindexed" in run("files").output  # indexed all the same
    stats = run("stats").output
    assert "as text: 1 (`files --skipped` says why)" in stats
    assert "MimeDB.scala" in run("search", "--exact", "type-37", "-l").output


def test_outline_prints_a_files_definitions_and_json(tree: Path) -> None:
    run("index", "--quiet")
    text = run("outline", "net/retry.py")
    assert text.exit_code == 0
    assert text.output.splitlines()[:2] == [
        "7-18  class RetryPolicy  · class RetryPolicy:",
        "10-13  method RetryPolicy.__init__  · def __init__(self, attempts: int = 5, "
        "base_delay: float = 0.2, max_delay: float = 10.0):"]
    rows = json.loads(run("outline", "net/retry.py", "--json").output)
    assert [r["qualname"] for r in rows] == ["RetryPolicy", "RetryPolicy.__init__",
                                             "RetryPolicy.delay", "call_with_retry"]
    missing = run("outline", "net/nope.py")
    assert missing.exit_code == 1 and "not an indexed file" in missing.output


def test_verbose_lists_skips(tree: Path) -> None:
    (tree / "node_modules").mkdir()
    result = run("index", "--verbose", "--quiet")
    assert "skipped node_modules/: generated or vendored folder" in result.output


def test_languages_and_version() -> None:
    langs = run("languages").output
    assert "python" in langs and ".py" in langs
    assert run("--version").output.startswith("semlith, version ")


def test_second_writer_is_refused(tree: Path) -> None:
    from semlith.store import Store

    run("index", "--quiet")
    holder = Store.open(tree / ".semlith", settings=Settings.load(), writable=True,
                        command="semlith serve")
    try:
        result = run("index", "--quiet")
        assert result.exit_code == 1
        assert "is being written by pid" in result.output and "semlith serve" in result.output
    finally:
        holder.close()


def test_several_stores_answer_one_query(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, text in (("alpha", "def heron_alpha():\n    return 1\n"),
                       ("beta", "def heron_beta():\n    return 2\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "code.py").write_text(text)
        assert run("index", str(tmp_path / name), "--quiet").exit_code == 0
    stores = [str(tmp_path / n / ".semlith") for n in ("alpha", "beta")]
    hits = json.loads(run("search", "heron", "--json", "--store", stores[0],
                          "--store", stores[1]).output)
    assert {h["store"] for h in hits} == {"alpha", "beta"}
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SEMLITH_STORE", os.pathsep.join(stores))
    text = run("search", "heron_beta").output
    assert "[beta] code.py:1-2" in text.splitlines()[0]


def test_forget_takes_glob_characters_literally(tree: Path) -> None:
    (tree / "odd[1]").mkdir()
    (tree / "odd[1]" / "a.py").write_text("A = 1\n")
    (tree / "odd1").mkdir()
    (tree / "odd1" / "b.py").write_text("B = 1\n")
    run("index", "--quiet")
    assert run("forget", "odd[1]").output.strip() == "forgot 1 file"
    assert "odd1/b.py\tindexed" in run("files").output


def test_json_commands_print_json_errors(tree: Path) -> None:
    run("index", "--quiet")
    for args in (["search", "x", "--store", "nope"], ["symbol", "X", "--store", "nope"],
                 ["stats", "--store", "nope"], ["files", "--store", "nope"],
                 ["read", "no/such/file.py:1-2"], ["status"]):
        result = run(*args, "--json")
        assert result.exit_code == 1, args
        assert set(json.loads(result.output)) == {"error"}, (args, result.output)


def test_a_store_is_named_by_its_name_or_its_project_folder(tree: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    run("index", "--quiet")
    monkeypatch.chdir(tmp_path)
    for store in ("proj", str(tree), str(tree / ".semlith"), str(tree / "net")):
        hits = json.loads(run("search", "RetryPolicy", "--json", "--store", store).output)
        assert hits[0]["path"] == "net/retry.py", store
    read = run("read", "proj:net/retry.py:7-7")
    assert read.exit_code == 0 and "class RetryPolicy:" in read.output


def test_files_prints_every_name_on_one_line(tree: Path) -> None:
    """A newline in a name is escaped in text, a plain string in JSON (issue 13)."""
    (tree / "two\nlines.py").write_text("def newline_in_my_name():\n    pass\n")
    (tree / "tab\there.md").write_text("# a tab\n")
    try:
        (tree / os.fsdecode(b"caf\xe9.txt")).write_text("x\n")
    except (OSError, UnicodeEncodeError) as exc:
        pytest.skip(f"this file system refuses non-UTF-8 names: {exc}")
    assert run("index", "--quiet").exit_code == 0
    listed = run("files").output.splitlines()
    assert "two\\nlines.py\tindexed" in listed and "tab\\there.md\tindexed" in listed
    assert len(listed) == 11
    rows = json.loads(run("files", "--json").output)
    assert "two\nlines.py" in [r["path"] for r in rows]
    skipped = run("files", "--skipped").output.splitlines()
    assert "caf\\xe9.txt\tname is not UTF-8" in skipped
    rows = json.loads(run("files", "--skipped", "--json").output)
    assert any(r["path"] == "caf\\xe9.txt" and r["reason"] == "name is not UTF-8"
               for r in rows), rows


@pytest.mark.skipif(os.name == "nt", reason="POSIX system folders")
def test_index_of_a_system_folder_is_refused_in_one_line() -> None:
    result = run("index", "/etc")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "semlith: error: not indexing '/etc': /etc is a system folder; index a project "
        "folder, or pass --allow-system if you mean it"]
    assert not Path("/etc/.semlith").exists()


def test_files_escapes_bidirectional_controls_in_names(tree: Path) -> None:
    """A name holding U+202E displays reversed (`x\\u202eyp.txt` reads as `xtxt.py`)."""
    (tree / "invoice\u202egpj.py").write_text("def pay():\n    return 1\n")
    assert run("index", str(tree), "--quiet").exit_code == 0
    listing = run("files").output
    assert "invoice\\u202egpj.py" in listing and "\u202e" not in listing
    found = run("search", "def pay return").output
    assert "\u202e" not in found


@pytest.mark.model
@pytest.mark.parametrize("query", ["zzqqxxyy", "qwvbnm plokij", "xqzvkt wlpmrn bvcfgh"])
def test_a_query_about_nothing_in_the_index_finds_nothing_and_exits_1(
        tree: Path, query: str) -> None:
    """It listed the three least unrelated files and exited 0 (issue #21)."""
    assert run("index", str(tree), "--quiet").exit_code == 0
    result = run("search", query)
    assert result.exit_code == 1 and result.output == ""
    assert run("search", "retry backoff").exit_code == 0  # a real question still answers


def test_stats_counts_in_the_singular_and_the_documented_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.secret_fixtures import fakes

    fake = fakes()
    root = tmp_path / "one"
    root.mkdir()
    (root / "config.py").write_text(f'GITHUB_TOKEN = "{fake.github}"\n')
    (root / "id_rsa").write_text(fake.key)
    monkeypatch.chdir(root)
    assert run("index", "--quiet").exit_code == 0
    stats = run("stats").output
    assert "withheld   1 secret file (`files --skipped`), 1 credential-shaped string " \
        "redacted in 1 file" in stats, stats
    assert "MB of a 512 MB budget)" in stats, stats  # SEMLITH_INDEX_MEMORY's default
    monkeypatch.setenv("SEMLITH_INDEX_MEMORY", "64")
    assert "MB of a 64 MB budget)" in run("stats").output


def test_a_copied_file_is_reported_as_copied(tree: Path) -> None:
    run("index", "--quiet")
    shutil.copy(tree / "net" / "retry.py", tree / "net" / "retry_copy.py")
    again = run("index").output
    assert "1 copied" in again and " moved" not in again, again
    (tree / "net" / "retry.py").rename(tree / "retry_moved.py")
    moved = run("index").output
    assert "1 moved" in moved and "copied" not in moved, moved


def test_a_catalog_that_is_not_sqlite_is_one_line_not_a_traceback(tree: Path) -> None:
    run("index", "--quiet")
    (tree / ".semlith" / "store.db").write_bytes(b"not a database" * 100)
    result = run("stats")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.strip().endswith("is not a semlith catalog (file is not a database)")
    assert len(result.output.strip().splitlines()) == 1
