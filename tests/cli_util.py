"""Running the CLI as people do (click's runner), with the deterministic test model."""

from __future__ import annotations

from click.testing import CliRunner, Result

from semlith.cli import Env, main
from tests.conftest import HashEmbedder


def run(*args: str) -> Result:
    """`semlith ARGS` in this process: a fresh environment (settings, library) per call."""
    return CliRunner().invoke(main, list(args),
                              obj=Env(embedder_factory=lambda name: HashEmbedder(name)))
