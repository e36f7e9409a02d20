"""Build a recipe model in a child process, so the daemon never keeps the build's memory.

Building MiniLM from its package (onnx, the quantizer, the float graph) left a daemon
that built it at start at 373 MB with one store, against 158 MB for one that found it
built (issue #25; docs/performance.md, "Memory by part"): the build's arrays are freed
but the heap stays fragmented. `semlith serve` asks for the build here first; the child
is `semlith models --build NAME` with the daemon's SEMLITH_HOME and SEMLITH_MODELS.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys

from semlith.base.settings import Settings
from semlith.embed.cache import MANIFEST
from semlith.embed.recipes import RECIPES

log = logging.getLogger("semlith.models")
BUILD_TIMEOUT_S = 600


def build_apart(name: str, settings: Settings) -> bool:
    """Build recipe `name` in a child process unless a build is there; True when the
    child built it. Anything else (not a recipe, built, the child failed: logged) is
    False, and loading the model in this process then builds it or says why not."""
    if name not in RECIPES or (settings.models_dir / name / MANIFEST).is_file():
        return False
    env = {**os.environ, "SEMLITH_HOME": str(settings.home),
           "SEMLITH_MODELS": str(settings.models_dir)}
    try:
        done = subprocess.run([sys.executable, "-m", "semlith", "models", "--build", name],
                              env=env, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("building model %s in a child process failed (%s); building here", name,
                    exc)
        return False
    if done.returncode != 0:
        log.warning("building model %s in a child process failed: %s", name,
                    (done.stderr or done.stdout).strip().splitlines()[-1:])
        return False
    return True
