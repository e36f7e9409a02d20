"""Built recipe models under `<models dir>/<name>/`, content-hashed and checked on load.

A build writes `model.onnx`, the tokenizer files and `build.json` (recipe version, the
source package's version and weights hash, and the sha256 of every file) into a fresh
folder beside the final one, then renames it into place, so a killed build leaves no
half model. Loading re-hashes the files once per process: a cache that fails the check
(corrupted, truncated, edited, from another recipe version or source) is rebuilt, with
its reason on the progress line, never silently used. Two processes building at once
both finish; the second rename loses and its copy is discarded.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata, util
from pathlib import Path

from semlith.embed.recipes import Recipe
from semlith.errors import ModelError

MANIFEST = "build.json"
Progress = Callable[[str], None]

_lock = threading.Lock()
_folder_locks: dict[Path, threading.Lock] = {}
_verified: dict[Path, tuple[int, int]] = {}  # folder -> (manifest mtime_ns, size) checked


@dataclass(frozen=True, slots=True)
class Source:
    package: str
    version: str
    path: Path


def find_source(recipe: Recipe) -> Source | None:
    """The installed weights file, located without importing the package."""
    try:
        spec = util.find_spec(recipe.module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / recipe.weights
    if not path.is_file():
        return None
    try:
        version = metadata.version(recipe.package)
    except metadata.PackageNotFoundError:
        version = "unknown"
    return Source(recipe.package, version, path)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def problem(folder: Path, recipe: Recipe, source: Source | None) -> str | None:
    """Why the cached build in `folder` cannot be used, or None when it can."""
    manifest = folder / MANIFEST
    if not manifest.is_file():
        return "not built"
    try:
        built = json.loads(manifest.read_text(encoding="utf-8"))
        files: dict[str, str] = built["files"]
        if built["recipe"] != recipe.name or built["recipe_version"] != recipe.version:
            return f"built by recipe version {built['recipe_version']}, now {recipe.version}"
        if source is not None and built["source"]["version"] != source.version:
            return (f"built from {source.package} {built['source']['version']}, "
                    f"{source.version} is installed")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"unreadable {MANIFEST} ({exc})"
    for name, digest in files.items():
        if not (folder / name).is_file():
            return f"{name} is missing"
        if sha256(folder / name) != digest:
            return f"{name} failed its sha256 check"
    return None


def built_size(folder: Path) -> int | None:
    """Bytes of a finished build, or None when there is none."""
    if not (folder / MANIFEST).is_file():
        return None
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file())


def _folder_lock(folder: Path) -> threading.Lock:
    with _lock:
        return _folder_locks.setdefault(folder, threading.Lock())


def _stamp(folder: Path) -> tuple[int, int]:
    stat = (folder / MANIFEST).stat()
    return stat.st_mtime_ns, stat.st_size


def ensure_built(recipe: Recipe, models_dir: Path, on_progress: Progress) -> Path:
    """The folder of a verified build of `recipe`, building it first when needed.

    Raises ModelError naming the install command when the source package is missing and
    no valid build exists.
    """
    folder = models_dir / recipe.name
    with _folder_lock(folder):
        if folder.is_dir() and _verified.get(folder) == _stamp_or_none(folder):
            return folder
        source = find_source(recipe)
        reason = problem(folder, recipe, source)
        if reason is None:
            _verified[folder] = _stamp(folder)
            return folder
        if source is None:
            raise ModelError(_not_installed(recipe, folder))
        prefix = "" if reason == "not built" else f"cached build unusable ({reason}); "
        on_progress(f"{prefix}building model {recipe.name} from {recipe.package} "
                    f"{source.version} (once, ~{recipe.measured.build_s:.0f} s)...")
        _build(recipe, source, folder)
        _verified[folder] = _stamp(folder)
        return folder


def _not_installed(recipe: Recipe, folder: Path) -> str:
    message = (f"model {recipe.name!r} is built from the {recipe.package} package, which "
               f"is not installed; run: {recipe.install}")
    if recipe.platforms:
        # A build is plain ONNX and JSON: one made elsewhere works here (issue #11).
        message += (f" ({recipe.package} installs on {recipe.platforms}; elsewhere run "
                    f"`semlith models --build {recipe.name}` on such a machine and copy "
                    f"its models/{recipe.name} folder to {str(folder)!r})")
    return message


def _stamp_or_none(folder: Path) -> tuple[int, int] | None:
    try:
        return _stamp(folder)
    except OSError:
        return None


def _build(recipe: Recipe, source: Source, folder: Path) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix=f".{recipe.name}.build-", dir=folder.parent))
    try:
        recipe.convert(source.path, work)
        files = {p.name: sha256(p) for p in sorted(work.iterdir()) if p.is_file()}
        manifest = {
            "recipe": recipe.name, "recipe_version": recipe.version,
            "source": {"package": source.package, "version": source.version,
                       "file": source.path.name, "sha256": sha256(source.path)},
            "files": files, "seconds": round(time.monotonic() - started, 1),
            "built_by": _versions(),
        }
        (work / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        _replace(work, folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _replace(work: Path, folder: Path) -> None:
    """Move the finished build into place; an old or broken one is moved aside first."""
    if folder.exists():
        trash = folder.with_name(f".{folder.name}.old-{os.getpid()}")
        try:
            folder.rename(trash)
        except OSError:
            return  # another process is replacing it right now; its build wins
        shutil.rmtree(trash, ignore_errors=True)
    with contextlib.suppress(OSError):  # another process renamed its build in first; ours
        work.rename(folder)             # is deleted by the caller


def _versions() -> dict[str, str]:
    out = {}
    for package in ("onnx", "onnxruntime", "numpy", "tokenizers"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = "absent"
    return out
