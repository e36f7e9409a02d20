"""walk_files and is_ignored on real trees in tmp_path."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

import pytest

from semlith.ingest.walk import (
    VENDORED_FOLDERS,
    Candidate,
    Skipped,
    SkipReason,
    is_ignored,
    walk_files,
)

R = SkipReason


def make(root: Path, *rels: str, data: bytes = b"x") -> None:
    """Files (and folders, for names ending in "/") under `root`."""
    for rel in rels:
        path = root / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def reasons(walked: Iterable[Candidate | Skipped]) -> dict[str, SkipReason | None]:
    """rel -> None for a candidate, else the skip reason; every rel appears once."""
    items = list(walked)
    result = {item.rel: item.reason if isinstance(item, Skipped) else None for item in items}
    assert len(result) == len(items), "a path was reported twice"
    return result


def outcome(
    root: Path, *, exclude: Sequence[Path] = (), max_bytes: int = 8 << 20
) -> dict[str, SkipReason | None]:
    return reasons(walk_files(root, exclude=exclude, max_bytes=max_bytes))


def candidates(root: Path) -> list[str]:
    return [rel for rel, reason in outcome(root).items() if reason is None]


def symlink(target: Path, link: Path) -> None:
    try:
        link.symlink_to(target, target_is_directory=target.is_dir())
    except (OSError, NotImplementedError) as exc:
        pytest.skip(f"cannot create symlinks here: {exc}")


# -- .gitignore ------------------------------------------------------------------------


def test_nested_gitignore_anchoring(tmp_path: Path) -> None:
    write(tmp_path / ".gitignore", "/build\n*.log\n")
    write(tmp_path / "pkg/.gitignore", "/gen\ncache\n")
    make(tmp_path, "build/a.py", "src/build/b.py", "x.log", "src/y.log", "pkg/gen/c.py",
         "pkg/sub/gen/d.py", "pkg/sub/cache/e.py", "other/gen/f.py", "other/cache/g.py")
    assert outcome(tmp_path) == {
        ".gitignore": R.HIDDEN,
        "build/": R.GITIGNORE,  # "/build" is anchored to the root...
        "other/cache/g.py": None,  # ...and pkg's patterns apply only inside pkg
        "other/gen/f.py": None,
        "pkg/.gitignore": R.HIDDEN,
        "pkg/gen/": R.GITIGNORE,
        "pkg/sub/cache/": R.GITIGNORE,  # unanchored: any depth below pkg
        "pkg/sub/gen/d.py": None,  # "/gen" is anchored to pkg
        "src/build/b.py": None,
        "src/y.log": R.GITIGNORE,
        "x.log": R.GITIGNORE,
    }


def test_negation_in_the_same_and_in_a_nested_file(tmp_path: Path) -> None:
    write(tmp_path / ".gitignore", "*.log\n!keep.log\n")
    write(tmp_path / "sub/.gitignore", "!debug.log\n")
    make(tmp_path, "a.log", "keep.log", "sub/keep.log", "sub/debug.log", "sub/other.log")
    result = outcome(tmp_path)
    assert result["a.log"] == R.GITIGNORE
    assert result["sub/other.log"] == R.GITIGNORE
    assert result["keep.log"] is None
    assert result["sub/keep.log"] is None
    assert result["sub/debug.log"] is None  # the deeper file decides


def test_directory_only_pattern_leaves_files_of_that_name(tmp_path: Path) -> None:
    write(tmp_path / ".gitignore", "cache/\n")
    make(tmp_path, "cache/a.py", "lib/cache/b.py", "lib/other/cache")
    result = outcome(tmp_path)
    assert result["cache/"] == R.GITIGNORE
    assert result["lib/cache/"] == R.GITIGNORE
    assert result["lib/other/cache"] is None


def test_double_star_patterns(tmp_path: Path) -> None:
    write(tmp_path / ".gitignore", "docs/**/draft.md\n**/tmp\nlogs/**\n!logs/keep.txt\n")
    make(tmp_path, "docs/draft.md", "docs/a/b/draft.md", "other/draft.md", "deep/er/tmp/x",
         "logs/x.txt", "logs/keep.txt", "logs/sub/y.txt")
    result = outcome(tmp_path)
    assert result["docs/draft.md"] == R.GITIGNORE
    assert result["docs/a/b/draft.md"] == R.GITIGNORE
    assert result["other/draft.md"] is None
    assert result["deep/er/tmp/"] == R.GITIGNORE
    assert result["logs/x.txt"] == R.GITIGNORE
    # "logs/**" matches what is inside logs, not logs itself, so git re-includes keep.txt
    assert result["logs/keep.txt"] is None
    assert result["logs/sub/"] == R.GITIGNORE


def test_a_file_in_an_excluded_folder_cannot_be_reincluded(tmp_path: Path) -> None:
    write(tmp_path / ".gitignore", "secret/\n!secret/ok.txt\nlocked/\n")
    write(tmp_path / "locked/.gitignore", "!*\n")
    make(tmp_path, "secret/ok.txt", "secret/no.txt", "locked/a.txt")
    result = outcome(tmp_path)
    assert result["secret/"] == R.GITIGNORE
    assert result["locked/"] == R.GITIGNORE
    assert not [rel for rel in result if rel.startswith(("secret/", "locked/")) and len(rel) > 7]


def test_folder_negation_does_not_reinclude_files_an_outer_file_ignores(tmp_path: Path) -> None:
    # A folder pattern must match the folder itself only: if "!*/" also matched every path
    # below a folder (pathspec's regexes did), it would re-include pkg/sub/gen.py.
    write(tmp_path / ".gitignore", "**/gen.py\n")
    write(tmp_path / "pkg/.gitignore", "!*/\n")
    make(tmp_path, "pkg/sub/gen.py", "pkg/sub/main.py")
    result = outcome(tmp_path)
    assert result["pkg/sub/gen.py"] == R.GITIGNORE
    assert result["pkg/sub/main.py"] is None


def test_invalid_gitignore_lines_are_dropped_like_git_does(tmp_path: Path) -> None:
    write(tmp_path / ".gitignore", "!\n\\\n# comment\n\n*.tmp\n")
    make(tmp_path, "a.tmp", "b.py")
    assert candidates(tmp_path) == ["b.py"]


def test_gitignore_applies_without_a_git_repository(tmp_path: Path) -> None:
    write(tmp_path / ".gitignore", "*.pyc\n")
    make(tmp_path, "a.pyc", "a.py")
    assert not (tmp_path / ".git").exists()
    assert candidates(tmp_path) == ["a.py"]


def test_git_info_exclude_and_the_git_folder(tmp_path: Path) -> None:
    write(tmp_path / ".git/info/exclude", "local.txt\n")
    make(tmp_path, ".git/HEAD", "local.txt", "shared.txt")
    assert outcome(tmp_path) == {"local.txt": R.GITIGNORE, "shared.txt": None}


def test_gitignore_outranks_git_info_exclude(tmp_path: Path) -> None:
    write(tmp_path / ".git/info/exclude", "*.txt\n")
    write(tmp_path / ".gitignore", "!wanted.txt\n")
    make(tmp_path, "wanted.txt", "other.txt")
    result = outcome(tmp_path)
    assert result["wanted.txt"] is None
    assert result["other.txt"] == R.GITIGNORE


# -- .semlithignore --------------------------------------------------------------------


def test_semlithignore_nests_and_has_its_own_reason(tmp_path: Path) -> None:
    write(tmp_path / ".semlithignore", "*.min.js\nfixtures/\n")
    write(tmp_path / "web/.semlithignore", "/legacy\n")
    make(tmp_path, "app.js", "app.min.js", "fixtures/big.json", "web/legacy/old.js",
         "web/new/legacy/ok.js")
    result = outcome(tmp_path)
    assert result["app.min.js"] == R.SEMLITHIGNORE
    assert result["fixtures/"] == R.SEMLITHIGNORE
    assert result["web/legacy/"] == R.SEMLITHIGNORE
    assert result["web/new/legacy/ok.js"] is None
    assert result["app.js"] is None


def test_semlithignore_cannot_reinclude_what_gitignore_excludes(tmp_path: Path) -> None:
    write(tmp_path / ".gitignore", "*.gen.py\n")
    write(tmp_path / ".semlithignore", "!*.gen.py\n")
    make(tmp_path, "a.gen.py")
    assert outcome(tmp_path)["a.gen.py"] == R.GITIGNORE


# -- hidden, vendored, store -----------------------------------------------------------


def test_hidden_files_and_folders(tmp_path: Path) -> None:
    make(tmp_path, ".env", ".config/a.toml", ".config/deep/b.toml", "visible.py")
    assert outcome(tmp_path) == {".config/": R.HIDDEN, ".env": R.HIDDEN, "visible.py": None}


@pytest.mark.parametrize(
    "name", sorted(name for name, manifests in VENDORED_FOLDERS.items() if not manifests)
)
def test_vendored_folders_anywhere(tmp_path: Path, name: str) -> None:
    make(tmp_path, f"pkg/{name}/a.js", f"pkg/{name}/b/c.js", "pkg/main.js")
    assert outcome(tmp_path) == {f"pkg/{name}/": R.VENDORED, "pkg/main.js": None}


@pytest.mark.parametrize(
    ("name", "manifest"),
    [
        (name, manifest)
        for name, manifests in sorted(VENDORED_FOLDERS.items())
        for manifest in sorted(manifests)
    ],
)
def test_vendored_folders_beside_a_manifest(tmp_path: Path, name: str, manifest: str) -> None:
    make(tmp_path, f"with/{manifest}", f"with/{name}/a.txt", f"without/{name}/a.txt")
    result = outcome(tmp_path)
    assert result[f"with/{name}/"] == R.VENDORED
    assert result[f"without/{name}/a.txt"] is None  # e.g. a dist/ with no package.json


def test_egg_info_and_virtualenvs_whatever_their_name(tmp_path: Path) -> None:
    make(tmp_path, "semlith.egg-info/PKG-INFO", "myenv/pyvenv.cfg", "myenv/lib/x.py",
         "venv/__init__.py")  # a package named venv (no pyvenv.cfg) is source
    assert outcome(tmp_path) == {
        "myenv/": R.VENDORED,
        "semlith.egg-info/": R.VENDORED,
        "venv/__init__.py": None,
    }


def test_store_folder_is_excluded_even_when_hidden(tmp_path: Path) -> None:
    make(tmp_path, ".semlith/catalog.db", "data/store/shard.bin", "data/keep.txt", "a.py")
    result = outcome(tmp_path, exclude=[tmp_path / ".semlith", tmp_path / "data/store"])
    assert result == {".semlith/": R.STORE, "a.py": None, "data/keep.txt": None,
                      "data/store/": R.STORE}


# -- symlinks ----------------------------------------------------------------------------


def bounded(root: Path, limit: int = 1000) -> list[Candidate | Skipped]:
    items = list(islice(walk_files(root), limit))
    assert len(items) < limit, "the walk did not terminate"
    return items


def test_symlink_to_an_ancestor_is_a_loop(tmp_path: Path) -> None:
    make(tmp_path, "a/b/file.py")
    symlink(tmp_path, tmp_path / "a/b/up")
    items = bounded(tmp_path)
    assert Skipped("a/b/up/", R.SYMLINK_LOOP, "leads back to a folder above it") in items
    assert [item.rel for item in items if isinstance(item, Candidate)] == ["a/b/file.py"]


def test_two_folders_linking_to_each_other_terminate(tmp_path: Path) -> None:
    make(tmp_path, "x/fx.py", "y/fy.py")
    symlink(tmp_path / "y", tmp_path / "x/to_y")
    symlink(tmp_path / "x", tmp_path / "y/to_x")
    # each link names a folder the walk takes under its own name: an alias, not a loop
    assert reasons(bounded(tmp_path)) == {"x/fx.py": None, "x/to_y/": R.ALIAS,
                                          "y/fy.py": None, "y/to_x/": R.ALIAS}


def test_two_links_to_each_other_terminate(tmp_path: Path) -> None:
    symlink(tmp_path / "l2", tmp_path / "l1")
    symlink(tmp_path / "l1", tmp_path / "l2")
    assert reasons(bounded(tmp_path)) == {"l1": R.SYMLINK_LOOP, "l2": R.SYMLINK_LOOP}


def test_symlinks_inside_and_outside_the_root(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    make(outside, "secret.txt", "dir/s.txt")
    make(root, "real/a.py")
    symlink(outside / "secret.txt", root / "leak.txt")
    symlink(outside / "dir", root / "leakdir")
    symlink(root / "real/a.py", root / "alias.py")
    symlink(root / "real", root / "alias")
    items = {item.rel: item for item in walk_files(root)}
    assert items["leak.txt"] == Skipped(
        "leak.txt", R.OUTSIDE_ROOT, os.path.realpath(outside / "secret.txt"))
    assert isinstance(items["leakdir/"], Skipped)
    assert items["leakdir/"].reason == R.OUTSIDE_ROOT
    assert not any(rel.startswith("leakdir/") and len(rel) > 8 for rel in items)
    # A link to a file or folder the walk takes anyway is indexed once, under its own name.
    assert items["alias.py"] == Skipped("alias.py", R.ALIAS, "real/a.py")
    assert items["alias/"] == Skipped("alias/", R.ALIAS, "real")
    assert [rel for rel, item in items.items() if isinstance(item, Candidate)] == ["real/a.py"]


def test_a_link_is_followed_when_its_target_is_not_walked(tmp_path: Path) -> None:
    # `CLAUDE.md -> AGENTS.md` beside each other took two of the ten slots; a link into an
    # ignored or hidden folder is the only way its file is indexed, so it is followed.
    make(tmp_path, "AGENTS.md", "build/docs/guide.md", ".notes/todo.md", "v3/api.py")
    write(tmp_path / ".gitignore", "build/\n")
    symlink(tmp_path / "AGENTS.md", tmp_path / "CLAUDE.md")
    symlink(tmp_path / "build/docs", tmp_path / "docs")
    symlink(tmp_path / ".notes/todo.md", tmp_path / "TODO.md")
    symlink(tmp_path / "v3", tmp_path / "latest")
    symlink(tmp_path / "CLAUDE.md", tmp_path / "GEMINI.md")  # a link to a link
    items = {item.rel: item for item in walk_files(tmp_path)}
    taken = sorted(rel for rel, item in items.items() if isinstance(item, Candidate))
    assert taken == ["AGENTS.md", "TODO.md", "docs/guide.md", "v3/api.py"]
    assert items["CLAUDE.md"] == Skipped("CLAUDE.md", R.ALIAS, "AGENTS.md")
    assert items["GEMINI.md"] == Skipped("GEMINI.md", R.ALIAS, "AGENTS.md")
    assert items["latest/"] == Skipped("latest/", R.ALIAS, "v3")
    for rel in ("CLAUDE.md", "latest/api.py"):  # the watcher's judgement agrees
        assert is_ignored(tmp_path, rel) == R.ALIAS
    assert is_ignored(tmp_path, "docs/guide.md") is None


def test_broken_symlink_is_unreadable(tmp_path: Path) -> None:
    symlink(tmp_path / "missing.py", tmp_path / "dangling.py")
    assert list(walk_files(tmp_path)) == [
        Skipped("dangling.py", R.UNREADABLE, "broken symlink")]


# -- unreadable, large and special files ---------------------------------------------


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "locked"
    make(tmp_path, "locked/inside.py", "open.py")
    folder.chmod(0)
    try:
        if os.access(folder, os.R_OK):
            pytest.skip("chmod 000 does not stop this user (root?) from reading a folder")
        yield folder
    finally:
        folder.chmod(0o755)


def test_unreadable_folder_is_one_record_and_the_walk_goes_on(
    tmp_path: Path, locked: Path
) -> None:
    items = list(walk_files(tmp_path))
    assert [item.rel for item in items] == ["locked/", "open.py"]
    skipped = items[0]
    assert isinstance(skipped, Skipped)
    assert skipped.reason == R.UNREADABLE
    assert skipped.detail  # the error text, e.g. "Permission denied"
    assert is_ignored(tmp_path, "locked/inside.py") == R.UNREADABLE


def test_file_over_max_bytes(tmp_path: Path) -> None:
    make(tmp_path, "big.txt", data=b"x" * 11)
    make(tmp_path, "fits.txt", data=b"x" * 10)
    items = list(walk_files(tmp_path, max_bytes=10))
    assert items[0] == Skipped("big.txt", R.TOO_LARGE, "11 bytes")
    assert isinstance(items[1], Candidate)
    assert items[1].rel == "fits.txt"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no os.mkfifo on this platform")
def test_fifo_is_not_a_regular_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    assert list(walk_files(tmp_path)) == [Skipped("pipe", R.SPECIAL, "fifo")]


def test_missing_root_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        list(walk_files(tmp_path / "nope"))


# -- order and candidate fields --------------------------------------------------------


def test_order_is_sorted_by_name_depth_first(tmp_path: Path) -> None:
    make(tmp_path, "z.py", "b/c.py", "a.py", "b/a/x.py", "B.py", "b.py")
    expected = ["B.py", "a.py", "b/a/x.py", "b/c.py", "b.py", "z.py"]
    assert [item.rel for item in walk_files(tmp_path)] == expected
    assert [item.rel for item in walk_files(tmp_path)] == expected


def test_candidate_fields(tmp_path: Path) -> None:
    make(tmp_path, "src/app.py", data=b"print(1)\n")
    (item,) = walk_files(tmp_path)
    assert isinstance(item, Candidate)
    info = (tmp_path / "src/app.py").stat()
    assert item == Candidate(tmp_path / "src/app.py", "src/app.py", 9, info.st_mtime_ns)
    assert item.path.is_absolute()


# -- is_ignored --------------------------------------------------------------------------


def expected_from_walk(rel: str, walked: dict[str, SkipReason | None]) -> object:
    """What is_ignored should say about `rel`, judging by the walk's records."""
    if rel == ".git" or rel.startswith(".git/"):
        return R.HIDDEN
    for key in (rel, rel + "/"):
        if key in walked:
            return walked[key]
    parts = rel.split("/")
    for depth in range(len(parts) - 1, 0, -1):
        folder = "/".join(parts[:depth]) + "/"
        if folder in walked:
            return walked[folder]
    return None  # a folder that was walked into


def all_paths(root: Path) -> list[str]:
    rels = []
    for folder, dirs, files in os.walk(root):  # does not follow links; they are listed
        for name in dirs + files:
            rels.append(Path(folder, name).relative_to(root).as_posix())
    return sorted(rels)


def test_is_ignored_agrees_with_the_walk_for_every_path(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write(root / ".gitignore", "*.log\n/build/\n!keep.log\ndocs/**\n!docs/api.md\n")
    write(root / "src/.gitignore", "gen/\n")
    write(root / "src/.semlithignore", "*.snap\n")
    write(root / ".git/info/exclude", "scratch.txt\n")
    make(root, ".git/HEAD", "a.log", "keep.log", "build/out.o", "src/gen/x.py",
         "src/deep/gen/y.py", "src/app.py", "src/app.snap", "docs/api.md", "docs/guide.md",
         "docs/sub/x.md", ".hidden/a.py", ".env", "node_modules/pkg/index.js",
         "web/package.json", "web/dist/bundle.js", "web/src/main.js", "dist/keep.js",
         "go/go.mod", "go/vendor/lib.go", "env/pyvenv.cfg", "env/lib/site.py",
         "scratch.txt", ".semlith/catalog.db", "huge.bin")
    write(root / "huge.bin", "x" * 100)
    make(tmp_path, "outside.txt")
    symlink(root, root / "src/loop")
    symlink(tmp_path / "outside.txt", root / "leak.txt")
    symlink(root / "src/app.py", root / "alias.py")
    symlink(root / "nowhere", root / "dangling")
    exclude = [root / ".semlith"]
    walked = outcome(root, exclude=exclude, max_bytes=50)
    paths = all_paths(root)
    assert len(paths) > 40
    for rel in paths:
        expected = expected_from_walk(rel, walked)
        assert is_ignored(root, rel, exclude=exclude, max_bytes=50) == expected, rel
    assert set(walked.values()) >= {R.GITIGNORE, R.SEMLITHIGNORE, R.HIDDEN, R.VENDORED,
                                    R.STORE, R.SYMLINK_LOOP, R.OUTSIDE_ROOT, R.UNREADABLE,
                                    R.TOO_LARGE, None}


def test_is_ignored_for_paths_that_do_not_exist(tmp_path: Path) -> None:
    write(tmp_path / ".gitignore", "*.log\nout/\n")
    make(tmp_path, "package.json")
    assert is_ignored(tmp_path, "new.log") == R.GITIGNORE
    assert is_ignored(tmp_path, "node_modules/new/index.js") == R.VENDORED
    assert is_ignored(tmp_path, "dist/app.js") == R.VENDORED  # beside package.json
    assert is_ignored(tmp_path, "out/x.py") == R.GITIGNORE
    assert is_ignored(tmp_path, "src/new.py") is None
    assert is_ignored(tmp_path, ".cache/x") == R.HIDDEN
    assert is_ignored(tmp_path, ".git/index") == R.HIDDEN


def test_is_ignored_sees_an_edited_ignore_file(tmp_path: Path) -> None:
    make(tmp_path, "a.txt")
    write(tmp_path / ".gitignore", "*.md\n")
    assert is_ignored(tmp_path, "a.txt") is None
    write(tmp_path / ".gitignore", "*.md\n*.txt\n")
    assert is_ignored(tmp_path, "a.txt") == R.GITIGNORE


@pytest.mark.parametrize("rel", ["", "../x", "/etc/passwd", "a/../../b"])
def test_is_ignored_rejects_paths_outside_the_root(tmp_path: Path, rel: str) -> None:
    with pytest.raises(ValueError, match="relative to the root"):
        is_ignored(tmp_path, rel)


def test_unreadable_folder_when_permissions_are_not_enforced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI runs as root, where chmod 000 stops nothing: deny the listing at the OS call."""
    make(tmp_path, "locked/inside.py", "open.py")
    real_scandir = os.scandir
    denied = str(tmp_path / "locked")

    def scandir(path: str) -> Any:
        if os.fspath(path) == denied:
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    items = list(walk_files(tmp_path))
    assert [item.rel for item in items] == ["locked/", "open.py"]
    assert items[0] == Skipped("locked/", R.UNREADABLE, "Permission denied")


# -- names that are not text -------------------------------------------------------------


def bad_name(folder: Path, raw: bytes = b"caf\xe9.txt") -> Path:
    """A file whose name is not UTF-8 (`printf x > "$(printf 'caf\\xe9.txt')"`)."""
    path = folder / os.fsdecode(raw)
    try:
        path.write_bytes(b"x")
    except (OSError, UnicodeEncodeError) as exc:  # macOS and Windows refuse such names
        pytest.skip(f"this file system refuses non-UTF-8 names: {exc}")
    return path


def test_a_name_that_is_not_utf8_is_skipped_and_recorded_escaped(tmp_path: Path) -> None:
    bad_name(tmp_path)
    (tmp_path / os.fsdecode(b"d\xff")).mkdir()
    make(tmp_path, os.fsdecode(b"d\xff") + "/inner.py", "ok.py", "line\nbreak.py")
    walked = list(walk_files(tmp_path))
    assert walked[0] == Skipped("caf\\xe9.txt", R.BAD_NAME)
    assert Skipped("d\\xff/", R.BAD_NAME) in walked
    assert candidates(tmp_path) == ["line\nbreak.py", "ok.py"]
    assert is_ignored(tmp_path, os.fsdecode(b"caf\xe9.txt")) == R.BAD_NAME
    assert is_ignored(tmp_path, os.fsdecode(b"d\xff") + "/inner.py") == R.BAD_NAME
    assert list(walk_files(tmp_path, start=os.fsdecode(b"d\xff"))) == [
        Skipped("d\\xff/", R.BAD_NAME)]
