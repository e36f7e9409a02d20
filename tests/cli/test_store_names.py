"""Store names are unique on the machine, and a name that is not is refused (#23).

The CLI as people run it (click's runner, the deterministic test model).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli_util import run


def _project(where: Path, text: str) -> Path:
    root = where / "newproj"
    root.mkdir(parents=True)
    (root / "main.py").write_text(f"def {text}():\n    return '{text}'\n")
    return root


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    return _project(tmp_path / "a", "heron_alpha"), _project(tmp_path / "b", "heron_beta")


def _names() -> list[str]:
    return [s["name"] for s in json.loads(run("stores", "--json").stdout)]


def test_a_second_folder_of_the_same_name_gets_a_distinct_name(two: tuple[Path, Path]
                                                               ) -> None:
    first, second = two
    done = run("index", str(first))
    assert done.exit_code == 0 and "created store 'newproj'" in done.stderr
    again = run("index", str(second))
    assert again.exit_code == 0, again.output
    assert (f"note: the name 'newproj' is taken (by {first / '.semlith'}); this store is "
            "'newproj-2'") in again.stderr
    assert _names() == ["newproj", "newproj-2"]
    hits = json.loads(run("search", "heron_beta", "--store", "newproj-2", "--json").stdout)
    assert {h["store"] for h in hits} == {"newproj-2"} and hits[0]["path"] == "main.py"
    assert "taken" not in run("index", str(second)).stderr  # the name is kept, said once
    assert _names() == ["newproj", "newproj-2"]


def test_a_copied_project_is_renamed_when_it_is_indexed(tmp_path: Path) -> None:
    first = _project(tmp_path / "a", "heron_alpha")
    assert run("index", str(first), "--quiet").exit_code == 0
    copy = tmp_path / "c" / "newproj"
    shutil.copytree(first, copy)  # its .semlith too: the same name inside
    done = run("index", str(copy))
    assert done.exit_code == 0 and "this store is 'newproj-2'" in done.stderr
    assert _names() == ["newproj", "newproj-2"]


def test_an_ambiguous_store_name_is_an_error_listing_the_candidates(
        two: tuple[Path, Path], semlith_home: Path) -> None:
    first, second = two
    for root in two:
        assert run("index", str(root), "--quiet").exit_code == 0
    registry = json.loads((semlith_home / "stores.json").read_text())
    for entry in registry["stores"]:  # as an older semlith registered them
        entry["name"] = "newproj"
    (semlith_home / "stores.json").write_text(json.dumps(registry))
    found = run("search", "heron", "--store", "newproj")
    assert found.exit_code == 1
    assert found.stderr.strip() == (
        f"semlith: error: the store name newproj is ambiguous: {first / '.semlith'}, "
        f"{second / '.semlith'}; pass one of those folders as --store")
    by_folder = run("search", "heron_beta", "--store", str(second), "--json")
    assert json.loads(by_folder.stdout)[0]["path"] == "main.py"


def test_search_where_no_store_covers_the_folder_says_how_to_choose(
        two: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for root in two:
        assert run("index", str(root), "--quiet").exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    found = run("search", "heron")
    assert found.exit_code == 1 and not found.stdout
    assert found.stderr.strip() == (
        f"semlith: error: no store indexes {elsewhere}; choose with --store NAME "
        "(`semlith stores` lists them) or --store '*' for every store")
    everything = run("search", "heron", "--store", "*", "--json")
    assert everything.exit_code == 0
    assert {h["store"] for h in json.loads(everything.stdout)} == {"newproj", "newproj-2"}


def test_free_name_skips_the_names_other_folders_hold(tmp_path: Path) -> None:
    from semlith.base.home import RegisteredStore, free_name, register_store

    home = tmp_path / "home"
    for n, name in enumerate(["app", "app-2", "lib"]):
        register_store(home, RegisteredStore(str(tmp_path / str(n)), str(tmp_path), "m", name))
    assert free_name(home, tmp_path / "9", "app") == ("app-3", str(tmp_path / "0"))
    assert free_name(home, tmp_path / "9", "web") == ("web", "")
    assert free_name(home, tmp_path / "0", "app") == ("app", "")  # its own name
