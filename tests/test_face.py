"""`import semlith` is the library's face (issue #44): the protocol, the way to open it,
its settings, values and errors, re-exported as semble and uvicorn do, and cheap to
import (every command imports the package first; issue #45)."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import semlith
from semlith import errors

ROOT = Path(__file__).resolve().parent.parent


def test_every_name_of_the_face_is_its_modules_own() -> None:
    homes = semlith._HOMES
    assert set(semlith.__all__) == {"__version__", *semlith._HOME}
    for module, names in homes.items():
        for name in names:
            assert getattr(semlith, name) is getattr(importlib.import_module(module), name)
    assert {"Library", "open_library", "Settings", "Filters", "Scope", "Answer",
            "Hit"} <= set(dir(semlith))


def test_every_error_is_on_the_face() -> None:
    raised = {name for name, value in vars(errors).items()
              if inspect.isclass(value) and issubclass(value, Exception)}
    assert raised - set(semlith.__all__) == set()


def test_a_name_not_on_the_face_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="LocalLibrary"):
        semlith.LocalLibrary  # noqa: B018


def test_importing_the_face_imports_none_of_the_library() -> None:
    code = "import sys, semlith\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    loaded = [m for m in done.stdout.split() if m.startswith("semlith") or m == "numpy"]
    assert loaded == ["semlith", "semlith.base", "semlith.base.version"]


def test_the_version_is_the_projects() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert semlith.__version__ == project["version"]
