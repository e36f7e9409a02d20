"""`semlith index ROOT` in its own process, held at the registry until a gate opens.

usage: python -m tests.registering_indexer ROOT GATE
Runs the real CLI command with the deterministic test model. Just before the run adds
its store to `stores.json` it creates GATE/ready-<pid> and waits for GATE/go, so a test
can release many processes into the registry's read-modify-write at once
(test_home.py). Exits with the command's exit code.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import semlith.local.sources
from semlith.cli import Env, main
from tests.conftest import HashEmbedder


def gated(gate: Path) -> None:
    real = semlith.local.sources.register_store

    def register(home: Path, *args: object) -> object:
        (gate / f"ready-{os.getpid()}").touch()
        while not (gate / "go").exists():
            time.sleep(0.001)
        return real(home, *args)  # type: ignore[arg-type]

    semlith.local.sources.register_store = register  # type: ignore[assignment]


if __name__ == "__main__":
    root, gate = sys.argv[1], Path(sys.argv[2])
    gated(gate)
    sys.exit(main(["index", root], obj=Env(embedder_factory=lambda n: HashEmbedder(n)),
                  standalone_mode=False) or 0)
