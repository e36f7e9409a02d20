"""The issue-localisation benchmark (benchmarks/issues.py, issue_data.py): its metrics,
its instance selection, the tree moved between commits, and the whole-file BM25 baseline
on a tiny git repository (no network, no model)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmark_util import load_benchmark

issues = load_benchmark("issues")
data = sys.modules["issue_data"]  # the module issues.py imported: the same Instance

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def test_files_are_counted_once_at_their_first_hit() -> None:
    files = issues.distinct_files(["a.py", "t/test_a.py", "a.py", "b.py", "c.py"])
    assert files == ["a.py", "t/test_a.py", "b.py", "c.py"]
    gold = ["b.py", "c.py"]
    assert [issues.hit_at(files, gold, n) for n in (1, 2, 3, 10)] == [0, 0, 1, 1]
    assert issues.all_gold_at(files, gold, 3) == 0  # c.py is the 4th distinct file
    assert issues.all_gold_at(files, gold, 4) == 1
    assert issues.hit_at([], gold, 10) == 0


def test_tokens_count_every_hit_up_to_and_including_the_first_gold_one() -> None:
    hits = [("a.py", 400), ("doc.rst", 800), ("b.py", 1200), ("b.py", 4000)]
    assert issues.tokens_to_first_gold(hits, ["b.py"]) == (400 + 800 + 1200) / 4
    assert issues.tokens_to_first_gold(hits, ["a.py"]) == 100
    assert issues.tokens_to_first_gold(hits, ["z.py"]) is None


def _instance(iid: str, repo: str = "o/r", half: str = "tune") -> object:
    return data.Instance(iid, repo, "0" * 40, "issue text", ("b.py",), half)


def test_a_row_and_the_summary_over_rows() -> None:
    hit = issues.score(_instance("o__r-1"), ["b.py"], "bm25", [("a.py", 40), ("b.py", 40)])
    assert (hit["hit@1"], hit["hit@5"], hit["hit@10"], hit["tokens"]) == (0, 1, 1, 20)
    assert hit["files"] == ["a.py", "b.py"] and hit["all_gold@10"] == 1
    miss = issues.score(_instance("o__r-2", half="confirm"), ["b.py"], "bm25", [("a.py", 40)])
    first = issues.score(_instance("o__r-3"), ["b.py"], "bm25", [("b.py", 400)])
    s = issues.summarise([hit, miss, first])
    assert s["n"] == 3 and s["hit@1"] == 1 / 3 and s["hit@5"] == 2 / 3
    assert s["tokens_median"] == 60  # of 20 and 100: the miss is left out
    assert issues.summarise([miss])["tokens_median"] is None
    report = issues.report([hit, miss, first])
    assert report["bm25 / [confirm]"]["n"] == 1 and report["bm25 / [tune]"]["n"] == 2
    assert report["bm25 / o/r"] == report["bm25 / all"]


def test_the_gold_files_are_every_file_the_patch_touches() -> None:
    patch = ("diff --git a/pkg/mod.py b/pkg/mod.py\n--- a/pkg/mod.py\n+++ b/pkg/mod.py\n"
             "@@ -1 +1 @@\n-x\n+y\ndiff --git a/pkg/new.py b/pkg/new.py\nnew file mode 100644\n"
             "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1 @@\n+z\n"
             "diff --git a/pkg/mod.py b/pkg/mod.py\n")
    assert data.patch_files(patch) == ("pkg/mod.py", "pkg/new.py")


def _row(iid: str, repo: str = "o/r") -> dict[str, str]:
    return {"instance_id": iid, "repo": repo, "base_commit": "0" * 40,
            "problem_statement": "text", "golden_patch": "diff --git a/x.py b/x.py\n"}


def test_halves_alternate_over_sorted_ids_and_lite_is_never_chosen() -> None:
    rows = [_row(f"o__r-{n}") for n in (5, 1, 3, 2, 4)] + [_row("p__q-1", "p/q")]
    lite = {"o__r-3"}
    chosen = data.select(rows, lite, ["o/r", "p/q"])
    assert [(i.instance_id, i.half) for i in chosen] == [
        ("o__r-1", "tune"), ("o__r-2", "confirm"), ("o__r-4", "tune"),
        ("o__r-5", "confirm"), ("p__q-1", "tune")]
    assert [i.instance_id for i in data.select(rows, lite, ["o/r"], "confirm")] == [
        "o__r-2", "o__r-5"]
    # a limit narrows the slice without moving anyone between halves
    assert [(i.instance_id, i.half) for i in data.select(rows, lite, ["o/r"], "tune", 1)] \
        == [("o__r-1", "tune")]


def _git(repo: Path, *args: str, when: int = 0) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
           "GIT_AUTHOR_DATE": f"{1_600_000_000 + when} +0000",
           "GIT_COMMITTER_DATE": f"{1_600_000_000 + when} +0000"}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def _commit(repo: Path, files: dict[str, str | None], when: int) -> str:
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"at {when}", when=when)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, list[str]]:
    """A repository of three commits, and their ids, oldest first."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    first = _commit(repo, {"retry.py": "def backoff(attempt):\n    return 2 ** attempt\n",
                           "cookies.py": "def parse_cookie(header):\n    return header\n",
                           "docs/retry.md": "Retry backoff doubles the wait.\n",
                           # Okapi's idf is 0 for a word in half the files: a few more
                           **{f"util{n}.py": f"VALUE_{n} = {n}\n" for n in range(3)}}, 1)
    second = _commit(repo, {"docs/retry.md": None,
                            "retry.py": "def backoff(attempt, cap):\n    return min(cap, 2)\n",
                            "pkg/session.py": "class Session:\n    cookie_jar = None\n"}, 2)
    third = _commit(repo, {"pkg/session.py": None}, 3)
    return repo / ".git", [first, second, third]


@needs_git
def test_the_tree_writes_only_what_changed_between_commits(
        tmp_path: Path, history: tuple[Path, list[str]]) -> None:
    git_dir, (first, second, third) = history
    tree = data.Tree(tmp_path / "trees" / "o+r", git_dir)
    assert set(tree.sync(first).written) == {"retry.py", "cookies.py", "docs/retry.md",
                                             "util0.py", "util1.py", "util2.py"}
    cookies_stat = (tree.folder / "cookies.py").stat().st_mtime_ns
    moved = tree.sync(second)
    assert set(moved.written) == {"retry.py", "pkg/session.py"}
    assert moved.removed == ("docs/retry.md",)
    assert not (tree.folder / "docs").exists()  # an emptied folder goes too
    assert "cap" in (tree.folder / "retry.py").read_text()
    assert (tree.folder / "cookies.py").stat().st_mtime_ns == cookies_stat  # untouched
    assert tree.sync(third).removed == ("pkg/session.py",)
    assert sorted(p.name for p in tree.folder.rglob("*")) == [
        "cookies.py", "retry.py", "util0.py", "util1.py", "util2.py"]
    # a tree whose record is gone (a sync cut short) is written anew
    tree.state.unlink()
    assert "docs/retry.md" in data.Tree(tree.folder, git_dir).sync(first).written
    assert len(list(tree.folder.rglob("*.py"))) == 5


@needs_git
def test_a_blob_the_mirror_lacks_is_left_out_not_a_crash(
        tmp_path: Path, history: tuple[Path, list[str]]) -> None:
    """A `fetch` snapshot leaves its largest files out (astropy's test data): the tree
    is written without them, and they are not recorded as written."""
    git_dir, (first, _, _) = history
    blob = _git(git_dir.parent, "rev-parse", f"{first}:util0.py")
    (git_dir / "objects" / blob[:2] / blob[2:]).unlink()
    tree = data.Tree(tmp_path / "trees" / "o+r", git_dir)
    written = set(tree.sync(first).written)
    assert "util0.py" not in written and {"retry.py", "util1.py"} <= written
    assert not (tree.folder / "util0.py").exists()
    assert "util0.py" not in json.loads(tree.state.read_text())["blobs"]


@needs_git
def test_instances_run_oldest_base_commit_first(history: tuple[Path, list[str]]) -> None:
    git_dir, (first, second, third) = history
    made = [data.Instance(iid, "o/r", sha, "", (), "tune")
            for iid, sha in (("o__r-1", third), ("o__r-2", first), ("o__r-3", second))]
    assert [i.instance_id for i in data.by_commit_date(made, git_dir)] == [
        "o__r-2", "o__r-3", "o__r-1"]


@needs_git
def test_bm25_ranks_whole_py_files_of_the_tree_at_each_commit(
        tmp_path: Path, history: tuple[Path, list[str]]) -> None:
    git_dir, (first, second, _) = history
    tree = data.Tree(tmp_path / "trees" / "o+r", git_dir)
    bm25 = issues.WholeFileBM25()
    assert bm25.update("o/r", tree.folder, tree.sync(first)) == "5 .py files"  # no .md
    ranked = bm25.search("o/r", "the retry backoff waits too long after an attempt")
    assert ranked[0] == ("retry.py", len((tree.folder / "retry.py").read_text()))
    assert "docs/retry.md" not in [p for p, _ in ranked]
    bm25.update("o/r", tree.folder, tree.sync(second))
    assert bm25.search("o/r", "Session cookie_jar is None")[0][0] == "pkg/session.py"
    # a fresh baseline over a kept tree reads every file, not only the last sync's
    fresh = issues.WholeFileBM25()
    assert fresh.update("o/r", tree.folder, tree.sync(second)) == "6 .py files"
