"""Stores and SEMLITH_HOME are owner-only on POSIX, and never show in `git status`."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from semlith.base import private
from semlith.base.home import RegisteredStore, register_store
from semlith.base.settings import Settings
from semlith.store import Store
from semlith.store.shards import shard_name
from tests.conftest import add_file, unit_vectors

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX modes")


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The umask most users have (022), whatever the test runner's: files default 0644."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def modes(folder: Path) -> dict[str, int]:
    """Relative path -> permission bits of the folder and everything in it."""
    found = {".": stat.S_IMODE(folder.stat().st_mode)}
    for path in folder.rglob("*"):
        found[path.relative_to(folder).as_posix()] = stat.S_IMODE(path.stat().st_mode)
    return found


def filled(folder: Path, settings: Settings) -> Store:
    store = Store.create(folder, model="m", dim=32, settings=settings)
    add_file(store, "a.py", unit_vectors(3, 32))
    return store


@posix_only
def test_a_new_store_is_owner_only(tmp_path: Path, settings: Settings) -> None:
    store = filled(tmp_path / ".semlith", settings)
    found = modes(store.folder)
    store.close()
    for name in ("store.db", "store.db-wal", "store.db-shm", "exact.f32", "index.lock",
                 f"shards/{shard_name(0)}", ".gitignore"):
        assert found.get(name) == 0o600, (name, oct(found.get(name, 0)))
    assert found["."] == 0o700 and found["shards"] == 0o700
    assert all(not mode & 0o077 for mode in found.values()), found


@posix_only
def test_an_old_store_is_tightened_on_its_next_writable_open(tmp_path: Path,
                                                             settings: Settings) -> None:
    folder = tmp_path / ".semlith"
    filled(folder, settings).close()
    (folder / ".gitignore").unlink()
    for path in [folder, *folder.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    Store.open(folder, settings=settings).close()  # a reader changes nothing
    assert modes(folder)["store.db"] == 0o644
    store = Store.open(folder, settings=settings, writable=True)
    store.checkpoint()
    store.close()
    assert all(not mode & 0o077 for mode in modes(folder).values()), modes(folder)
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"


@posix_only
def test_semlith_home_is_created_and_kept_owner_only(tmp_path: Path) -> None:
    home = tmp_path / "deep" / "home"
    register_store(home, RegisteredStore("/s", "/r", "m", "n"))
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "stores.json").stat().st_mode) == 0o600
    os.chmod(home, 0o755)
    register_store(home, RegisteredStore("/s2", "/r2", "m", "n2"))
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


def test_windows_keeps_its_acls(tmp_path: Path, settings: Settings,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    """No chmod at all where it cannot mean owner-only."""
    monkeypatch.setattr(private, "POSIX", False)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("chmod called on Windows")

    monkeypatch.setattr(os, "chmod", refuse)
    store = filled(tmp_path / ".semlith", settings)
    store.close()
    Store.open(tmp_path / ".semlith", settings=settings, writable=True).close()
    register_store(tmp_path / "home", RegisteredStore("/s", "/r", "m", "n"))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_store_never_shows_in_git_status(tmp_path: Path, settings: Settings) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.py").write_text("x = 1\n")
    filled(tmp_path / ".semlith", settings).close()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=tmp_path, capture_output=True, text=True, check=True)
    assert status.stdout.splitlines() == ["?? a.py"]


def test_private_helpers_on_missing_paths(tmp_path: Path) -> None:
    private.tighten(tmp_path / "missing")  # nothing to do, no error
    private.tighten_tree(tmp_path / "missing")
    target = tmp_path / "f"
    private.create_private_file(target)
    private.create_private_file(target)  # exists: kept
    assert target.read_bytes() == b""


@posix_only
def test_a_store_in_a_users_folder_changes_only_its_own_files(tmp_path: Path,
                                                              settings: Settings) -> None:
    """`--store DIR` may name a folder that holds other things: those are left alone."""
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o755)
    (folder / "notes.txt").write_text("mine\n")
    os.chmod(folder / "notes.txt", 0o644)
    filled(folder, settings).close()
    found = modes(folder)
    assert found["."] == 0o755 and found["notes.txt"] == 0o644
    assert ".gitignore" not in found and found["store.db"] == 0o600
