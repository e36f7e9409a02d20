"""Settings: flags > environment > defaults, and every setting is documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from semlith.base.settings import SETTINGS_DOC, Settings

DOCS = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"


def test_environment_and_flags() -> None:
    s = Settings.load(env={"SEMLITH_HOME": "/x/home", "SEMLITH_INDEX_MEMORY": "64",
                           "SEMLITH_PERF": "off", "SEMLITH_STORE": "/a:/b"})
    assert s.home == Path("/x/home") and s.index_memory_mb == 64 and not s.perf
    assert s.stores == (Path("/a"), Path("/b"))
    assert Settings.load(env={"SEMLITH_INDEX_MEMORY": "64"}, index_memory_mb=8).index_memory_mb == 8
    assert Settings.load(env={}).index_memory_mb == 512


@pytest.mark.parametrize("value", ["lots", "-3", "0"])
def test_bad_numbers_name_the_variable(value: str) -> None:
    with pytest.raises(ValueError, match="SEMLITH_INDEX_MEMORY"):
        Settings.load(env={"SEMLITH_INDEX_MEMORY": value})


def test_every_setting_is_documented() -> None:
    text = DOCS.read_text()
    documented = set(re.findall(r"`(SEMLITH_[A-Z_]+)`", text))
    assert set(SETTINGS_DOC) <= documented, set(SETTINGS_DOC) - documented
    assert documented <= set(SETTINGS_DOC), documented - set(SETTINGS_DOC)
