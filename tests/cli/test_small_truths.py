"""Small truths in the CLI's output (issue #45): a skip count says why, a zero limit is a
usage error, one is never plural, and `models` has a header row."""

from __future__ import annotations

from pathlib import Path

import pytest

from semlith.types import IndexReport
from semlith.types.skips import why_skipped
from tests.cli_util import run, tree  # noqa: F401 - the indexed sample


def test_the_summary_counts_the_skipped_by_reason(tree: Path) -> None:  # noqa: F811
    (tree / "blob.bin").write_bytes(b"\x00\x01" * 10)
    (tree / ".env.local").write_text("x = 1\n")  # hidden
    (tree / ".notes").write_text("mine\n")  # hidden
    line = run("index", "--quiet").stdout.strip()
    assert "3 skipped (2 hidden, 1 binary)," in line, line
    assert ", 0 skipped," in run("index", str(tree / "net"), "--quiet").stdout


def test_many_reasons_name_the_commonest_and_count_the_rest() -> None:
    reasons = {"hidden": 5, "binary": 1, "secret": 2, "too large": 1, "generated": 3,
               "unreadable": 1}
    assert why_skipped(reasons) == (" (5 hidden, 3 generated, 2 secret, 1 binary, "
                                    "2 for 2 other reasons)")
    assert why_skipped({}) == ""
    assert IndexReport(skipped=4).summary().startswith("0 indexed, 0 unchanged, 4 skipped, ")


@pytest.mark.parametrize("args", [
    ["search", "retry", "-k", "0"], ["search", "--exact", "retry", "-k", "0"],
    ["search", "retry", "--limit", "-3", "--json"], ["impact", "get", "--depth", "0"],
])
@pytest.mark.usefixtures("tree")
def test_a_zero_limit_is_a_usage_error(args: list[str]) -> None:
    result = run(*args)
    assert result.exit_code == 2 and "is not in the range" in result.output


@pytest.mark.usefixtures("tree")
def test_one_is_never_plural() -> None:
    path = run("path", "get", "ConnectionPool.acquire", "--path", "net/http_client.py")
    assert path.exit_code == 0 and "get -> ConnectionPool.acquire in 1 hop\n" in path.stdout
    neighbors = run("neighbors", "get")
    assert "1 other definition of get:" in neighbors.stdout


@pytest.mark.usefixtures("tree")
def test_models_has_a_header_row() -> None:
    lines = run("models").stdout.splitlines()
    assert lines[0].split() == ["MODEL", "DIM", "STATE", "SIZE", "SPEED", "SOURCE"]
    default = next(line for line in lines if "(default)" in line)
    assert default.index(" 384 ") + 1 == lines[0].index("DIM")  # the numbers under DIM
