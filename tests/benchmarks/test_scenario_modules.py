"""Every benchmark scenario module imports against the current API (issue #20:
scenarios_milvus.py imported a private function that had gone, and bench.py only
noted it as "not loaded"). Import only: running them is benchmarks/bench.py's job."""

from __future__ import annotations

import importlib
import importlib.util

import pytest

from tests.benchmark_util import BENCHMARKS

MODULES = sorted(p.stem for p in BENCHMARKS.glob("scenarios_*.py"))
# A module that needs an optional extra at import, the module the extra brings, and the
# command that installs it.
EXTRAS = {"scenarios_usearch": ("usearch", "pip install -e '.[bench]'")}


def test_the_modules_are_found() -> None:
    assert {"scenarios_milvus", "scenarios_store", "scenarios_registry"} <= set(MODULES)


def test_bench_loads_every_scenario_module() -> None:
    text = (BENCHMARKS / "bench.py").read_text()
    assert [m for m in MODULES if f'"{m}"' not in text] == []


@pytest.mark.parametrize("module", MODULES)
def test_a_scenario_module_imports(module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = EXTRAS.get(module)
    if extra is not None and importlib.util.find_spec(extra[0]) is None:
        pytest.skip(f"{module} needs {extra[0]}, which is not installed ({extra[1]})")
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # the modules import `harness` so
    importlib.import_module(module)
