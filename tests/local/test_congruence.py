"""The same `Library` calls through `LocalLibrary` (in this process, no daemon) and
`RemoteLibrary` (the real daemon over /api) give the same answers.

Two identical homes, each with the same two projects (the sample and a small second
one) indexed by the real model: one is served by a daemon, the other is read here. The
answers' `as_json()` are compared with each side's own folder written as `<tmp>` and
the fields that say who answered (`by_daemon`, `served_by`, `served`, `indexing`,
`watch`), what it did while open (`recovered`, the shards' residency and query
counts) or how long it took (`seconds`) left out.
"""

from __future__ import annotations

import difflib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from semlith.errors import BadTarget, NothingSelected, UnknownStore
from semlith.library import Library
from semlith.local import LocalLibrary
from semlith.remote import RemoteLibrary
from semlith.settings import Settings
from semlith.types import Filters, Scope
from tests.daemon_util import SAMPLE, semlith, start_daemon, wait_model

pytestmark = [pytest.mark.slow, pytest.mark.model]
# What this opener did, not what the store holds: the daemon opens its stores once, as
# the writer, and keeps shards resident across queries; the in-process library opens
# them read-only per call, so it repairs nothing and counts no earlier query.
WHO = {"by_daemon", "served_by", "served", "indexing", "watch", "seconds", "recovered",
       "queries", "resident", "resident_bytes", "reads_per_query"}
OTHER = {"notes/deploy.md": "# Deploy\n\nRoll out with blue green deployment and a canary.\n",
         "tool/retry.py": "def retry_with_backoff(call, attempts=3):\n    return call()\n"}


def _projects(base: Path, home: Path) -> None:
    shutil.copytree(SAMPLE, base / "sample", ignore=shutil.ignore_patterns(".semlith"))
    for rel, text in OTHER.items():
        (base / "other" / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / "other" / rel).write_text(text)
    for name in ("sample", "other"):
        done = semlith(home, "index", str(base / name), "--quiet")
        assert done.returncode == 0, done.stderr


class Side:
    def __init__(self, library: Library, base: Path) -> None:
        self.library, self.base = library, base

    def near(self, name: str = "sample") -> Scope:
        return Scope(near=(str(self.base / name),))


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Side, Side]]:
    here, there = tmp_path_factory.mktemp("here"), tmp_path_factory.mktemp("there")
    for base in (here, there):
        _projects(base, base / "home")
    daemon = start_daemon(there / "home", "--no-watch")
    wait_model(daemon)
    local = LocalLibrary(Settings.load(env={"SEMLITH_HOME": str(here / "home")}))
    remote = RemoteLibrary.connect(Settings.load(env={"SEMLITH_HOME": str(there / "home")}))
    assert remote is not None
    try:
        yield Side(local, here), Side(remote, there)
    finally:
        local.close()
        assert daemon.stop() == 0


def _plain(value: Any, base: Path) -> Any:
    if hasattr(value, "as_json"):
        value = value.as_json()
    if isinstance(value, dict):
        return {k: _plain(v, base) for k, v in value.items() if k not in WHO}
    if isinstance(value, list | tuple):
        return [_plain(v, base) for v in value]
    if isinstance(value, str):
        return value.replace(str(base.resolve()), "<tmp>").replace(str(base), "<tmp>")
    return value


def _same(sides: tuple[Side, Side], call: str, *args: Any, scope: str | None = "sample",
          **kwargs: Any) -> Any:
    answers = []
    for side in sides:
        extra = {} if scope is None else {"scope": side.near(scope)}
        answers.append(_plain(getattr(side.library, call)(*args, **kwargs, **extra), side.base))
    assert answers[0] == answers[1], _diff(*answers)
    return answers[0]


def _diff(here: Any, there: Any) -> str:
    lines = [json.dumps(answer, indent=1, sort_keys=True).splitlines() for answer in (here, there)]
    return "\n".join(difflib.unified_diff(*lines, "in process", "daemon", lineterm=""))


def _same_error(sides: tuple[Side, Side], kind: type[Exception], call: str, *args: Any,
                **kwargs: Any) -> None:
    messages = []
    for side in sides:
        with pytest.raises(kind) as raised:
            getattr(side.library, call)(*args, **kwargs)
        messages.append(_plain(str(raised.value), side.base))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("query", ["how are retries scheduled", "RetryPolicy", "zzqqxxyy"])
def test_search(sides: tuple[Side, Side], query: str) -> None:
    answer = _same(sides, "search", query, k=5)
    assert answer["stores"] == ["sample"] and bool(answer["hits"]) == (query != "zzqqxxyy")


def test_search_with_filters_and_every_store(sides: tuple[Side, Side]) -> None:
    _same(sides, "search", "retry", k=5, filters=Filters(exts=("py",)))
    _same(sides, "search", "retry", k=5, filters=Filters(paths=("!docs",)))
    both = _same(sides, "search", "deployment", k=8, scope=None)
    assert set(both["stores"]) == {"sample", "other"}
    for side in sides:
        stores = Scope(("*",))
        assert _plain(side.library.search("retry", k=3, scope=stores), side.base) == \
            _plain(sides[0].library.search("retry", k=3, scope=stores), sides[0].base)


def test_the_errors_keep_their_type(sides: tuple[Side, Side]) -> None:
    for side in sides:
        with pytest.raises(NothingSelected):
            side.library.search("retry", filters=Filters(exts=("zz",)), scope=side.near())
    _same_error(sides, UnknownStore, "files", scope=Scope(("no-such-store",)))
    _same_error(sides, BadTarget, "read", "nowhere.py:1-2", scope=Scope(("sample",)))


def test_symbol_and_read(sides: tuple[Side, Side]) -> None:
    found = _same(sides, "symbol", "RetryPolicy")
    assert found
    first = found[0]
    _same(sides, "read", f"{first['path']}:{first['start_line']}-{first['end_line']}")
    _same(sides, "read", "RetryPolicy")


def test_files_skipped_stats_stores(sides: tuple[Side, Side]) -> None:
    assert _same(sides, "files")
    _same(sides, "skipped")
    _same(sides, "stats")
    _same(sides, "stores", scope=None)


def test_index_a_changed_file_then_forget_it(sides: tuple[Side, Side]) -> None:
    for side in sides:
        (side.base / "sample" / "net" / "congruence.py").write_text(
            "def congruence_marker():\n    return 'the same both ways'\n")
    reports = [_plain(side.library.index([str(side.base / "sample" / "net")]), side.base)
               for side in sides]
    assert reports[0] == reports[1] and reports[0]["indexed"] == 1
    _same(sides, "search", "congruence_marker", k=3)
    removed = [side.library.forget(str(side.base / "sample" / "net" / "congruence.py"))
               for side in sides]
    assert removed == [1, 1]
    _same(sides, "files")
