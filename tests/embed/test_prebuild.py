"""The daemon's model build in a child process (issue #25: the build's memory)."""

from __future__ import annotations

from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.embed.cache import MANIFEST
from semlith.embed.models import load_embedder
from semlith.embed.prebuild import build_apart
from semlith.embed.text import DEFAULT_MODEL


@pytest.mark.slow
def test_a_missing_build_is_made_by_a_child_and_then_loads(tmp_path: Path) -> None:
    settings = Settings.load(env={"SEMLITH_HOME": str(tmp_path / "home"),
                                  "SEMLITH_MODELS": str(tmp_path / "models")})
    assert build_apart(DEFAULT_MODEL, settings)
    assert (tmp_path / "models" / DEFAULT_MODEL / MANIFEST).is_file()
    assert not build_apart(DEFAULT_MODEL, settings)  # built: nothing to do
    model = load_embedder(DEFAULT_MODEL, home=settings.home, models_dir=settings.models_dir)
    assert model.embed_query("retry backoff").shape == (model.dim,)


def test_other_models_are_left_to_the_loader(settings: Settings) -> None:
    assert not build_apart("test-hash", settings)
    assert not build_apart("BAAI/bge-small-en-v1.5", settings)  # fastembed's: downloaded
