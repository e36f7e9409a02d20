"""The wheel carries what the package needs at run time: grammars and tokenizer files."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from semlith.server.portal.routes import ASSETS

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_ships_grammars_and_tokenizer(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                    "-q", "-w", str(tmp_path), str(ROOT)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("semlith-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    grammars = {p.name for p in (ROOT / "grammars").glob("*.scm")}
    assert len(grammars) >= 20
    assert {f"semlith/grammars/{g}" for g in grammars} <= names
    assert "semlith/grammars/__init__.py" in names
    for tokenizer_file in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                           "config.json", "NOTICE"):
        assert f"semlith/embed/minilm/{tokenizer_file}" in names
    assert "semlith/ingest/formats/docx.py" in names  # a subpackage is listed by hand
    for asset in ASSETS:  # the portal's page, its scripts, its style and its icon
        assert f"semlith/server/portal/static/{asset}" in names
    assert "semlith/server/portal/routes.py" in names
    packages = {f.parent.relative_to(ROOT).as_posix() for f in (ROOT / "semlith").rglob(
        "__init__.py")}
    assert {f"{p}/__init__.py" for p in packages} <= names  # every package listed


def test_every_package_is_listed_in_pyproject() -> None:
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"])
    found = {".".join(f.parent.relative_to(ROOT).parts)
             for f in (ROOT / "semlith").rglob("__init__.py")}
    assert listed == found | {"semlith.grammars"}
