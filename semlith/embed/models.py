"""The models face: load an embedder by name, list every model, build a recipe now.

Recipe models (semlith/embed/recipes.py) are built from an installed package on first
use and cached under the models folder (`SEMLITH_MODELS`, default
`SEMLITH_HOME/models`); any other name is a fastembed model, loaded as before
(`FastEmbedder`: downloaded where a network exists, a clear error where not).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from semlith.embed import cache
from semlith.embed.onnx_model import OnnxEmbedder
from semlith.embed.recipes import RECIPES, Recipe
from semlith.embed.text import DEFAULT_MODEL, Embedder, FastEmbedder, list_models
from semlith.errors import ModelError

__all__ = ["DEFAULT_MODEL", "CatalogEntry", "build_model", "default_threads", "load_embedder",
           "model_catalog"]


def _stderr_line(message: str) -> None:
    print(f"semlith: {message}", file=sys.stderr, flush=True)


def default_threads() -> int:
    """Threads for indexing when `SEMLITH_EMBED_THREADS` is not set: for a recipe model,
    one-thread sessions embedding side by side (onnx_model.py); for other fastembed
    models, intra-op threads.

    Every CPU up to 4. Measured on 2 cores: two one-thread sessions beat one two-thread
    session (1.46x) and both beat one thread; above 2 it is not measured here, hence
    the cap.
    """
    return max(1, min(os.cpu_count() or 1, 4))


def load_embedder(name: str, *, home: Path, threads: int | None = None,
                  on_progress: cache.Progress | None = None,
                  models_dir: Path | None = None) -> Embedder:
    """The embedder for model `name`, ready to use.

    A recipe model is built on first use (one progress line, to stderr unless
    `on_progress` is given) and hash-checked on every first load in a process; any
    other name goes to fastembed. `models_dir` overrides `home / "models"`.
    Raises ModelError naming the fix when the model is unknown, not installed or not
    downloaded.
    """
    folder = _models_dir(home, models_dir)
    count = threads or default_threads()
    recipe = RECIPES.get(name)
    if recipe is None:
        return FastEmbedder(name, cache_dir=folder, threads=count)
    built = cache.ensure_built(recipe, folder, on_progress or _stderr_line)
    return OnnxEmbedder(name, built, recipe.runtime, threads=count)


def build_model(name: str, home: Path, on_progress: cache.Progress | None = None, *,
                models_dir: Path | None = None) -> Path:
    """Build (or verify) recipe `name` now; returns its folder. ModelError if not a recipe."""
    recipe = _recipe(name)
    return cache.ensure_built(recipe, _models_dir(home, models_dir),
                              on_progress or _stderr_line)


def _recipe(name: str) -> Recipe:
    recipe = RECIPES.get(name)
    if recipe is None:
        raise ModelError(f"{name!r} is not a recipe model; recipes: "
                         f"{', '.join(sorted(RECIPES))}")
    return recipe


def _models_dir(home: Path, given: Path | None) -> Path:
    return given if given is not None else home / "models"


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One line of `semlith models`."""

    name: str
    dim: int
    source: str  # where the weights come from
    state: str  # built | not built | needs <install> | downloaded | download
    size_mb: float | None  # on disk when built or downloaded, else the measured build size
    speed: str  # measured indexing and query speed, or "" when not measured
    description: str
    default: bool = False


def model_catalog(home: Path, *, models_dir: Path | None = None) -> list[CatalogEntry]:
    """Recipe models first (the default among them), then fastembed's catalogue."""
    folder = _models_dir(home, models_dir)
    out = [_recipe_entry(recipe, folder) for recipe in RECIPES.values()]
    for info in list_models(folder):
        if info.name in RECIPES:
            continue
        out.append(CatalogEntry(
            info.name, info.dim, "fastembed (downloads from the Hugging Face hub)",
            "downloaded" if info.installed else "download", None, "", info.description))
    return out


def _recipe_entry(recipe: Recipe, folder: Path) -> CatalogEntry:
    built = cache.built_size(folder / recipe.name)
    source = cache.find_source(recipe)
    if built is not None:
        state = "built"
    elif source is not None:
        state = "not built"
    else:
        state = f"needs: {recipe.install}"
    m = recipe.measured
    speed = (f"{m.chunks_per_s:.0f} chunks/s, query {m.query_ms:g} ms, {m.rss_mb} MB"
             if m.chunks_per_s else "")
    return CatalogEntry(
        recipe.name, recipe.dim, f"{recipe.package} ({recipe.weights}, {recipe.licence})",
        state, round(built / 1e6, 1) if built is not None else m.size_mb or None, speed,
        recipe.description, recipe.name == DEFAULT_MODEL)
