"""The real `semlith` command with the deterministic test model, as a process of its own.

usage: python -m tests.hash_cli DELAY ARGS...
Runs `semlith ARGS` (`serve`, `index`...) with a `HashEmbedder` that spends DELAY seconds
per chunk it embeds, so that a test can watch a run's progress move (test_portal_browser).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from semlith.cli import Env, main
from tests.conftest import HashEmbedder


def run() -> None:
    delay = float(sys.argv[1])

    class Paced(HashEmbedder):
        def embed_documents(self, texts: list[str]) -> np.ndarray:
            time.sleep(delay * len(texts))
            return super().embed_documents(texts)

    main(sys.argv[2:], obj=Env(embedder_factory=lambda name: Paced(name)))


if __name__ == "__main__":
    run()
