"""Targets fitted to the repository trees (benchmarks/tree_targets.py, issue #21): spans
follow their lines, a stub under the old name does not fit, and the harness excludes
and counts a question that does not fit."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

_DIR = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"{name}_benchmark", _DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while building
    spec.loader.exec_module(module)
    return module


tree_targets = _load("tree_targets")
retrieval = _load("retrieval")

REGISTRY = ["import x", "", "def helper():", "    return 1", "", "def wanted(a):",
            "    b = a + 1", "    return b", ""]


def test_a_span_the_tree_holds_in_place_stays() -> None:
    assert tree_targets.fit_span(REGISTRY, list(REGISTRY), 6, 8) == (6, 8)


def test_a_span_moves_to_where_the_tree_holds_the_same_lines() -> None:
    tree = ["import x", "import y", "", "", "def wanted(a):", "    b = a + 1",
            "    return b", "", "def helper():", "    return 1"]
    assert tree_targets.fit_span(REGISTRY, tree, 6, 8) == (5, 7)


def test_the_copy_nearest_the_old_place_wins() -> None:
    block = ["def wanted(a):", "b = a + 1", "return b"]
    tree = [*block, *["pass"] * 10, *block]
    registry = [*["pass"] * 12, *block]
    assert tree_targets.fit_span(registry, tree, 13, 15) == (14, 16)


def test_an_edited_span_stays_where_it_was() -> None:
    tree = ["import x", "", "def wanted(a, c):", "    b = a + c", "    return b"]
    assert tree_targets.fit_span(REGISTRY, tree, 6, 8) == (6, 8)


def test_a_stub_under_the_old_name_does_not_fit_and_an_edited_file_does(
        tmp_path: Path) -> None:
    old = tmp_path / "old.h"
    old.write_text("\n".join(f"int function_{i}(void);" for i in range(200)))
    stub = tmp_path / "stub.h"
    stub.write_text('#include "base.h"\n// moved to base.h\n')
    edited = tmp_path / "edited.h"
    edited.write_text("\n".join(f"int function_{i}(void);" for i in range(150, 400)))
    assert tree_targets.fit_target(old, stub, None, None) is None
    assert tree_targets.fit_target(old, edited, None, None) == (None, None)


def _corpus(root: Path, files: dict[str, str]) -> object:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return retrieval.Corpus("demo", root, "src")


def test_the_harness_fits_questions_and_counts_those_that_do_not_fit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(_DIR))
    eval_dir = tmp_path / "eval"
    (eval_dir / "annotations").mkdir(parents=True)
    (eval_dir / "annotations" / "demo.json").write_text(json.dumps([
        {"query": "where is wanted", "category": "symbol",
         "relevant": [{"path": "src/a.py", "start_line": 6, "end_line": 8}]},
        {"query": "what the core header holds", "category": "architecture",
         "relevant": ["src/core.h"]},
        {"query": "the helper module", "category": "semantic", "relevant": ["src/a.py"]}]))
    header = "\n".join(f"int function_{i}(void);" for i in range(50))
    registry = _corpus(tmp_path / "registry", {"src/a.py": "\n".join(REGISTRY),
                                               "src/core.h": header})
    tree = _corpus(tmp_path / "tree", {
        "src/a.py": "\n".join(["", "", *REGISTRY]), "src/core.h": '#include "base.h"\n'})
    plain, excluded = retrieval.load_questions(eval_dir, tree)
    assert (len(plain), excluded) == (3, 0)
    assert plain[0].targets[0] == retrieval.Target("src/a.py", 6, 8)
    fitted, excluded = retrieval.load_questions(eval_dir, tree, registry)
    assert excluded == 1
    assert [q.query for q in fitted] == ["where is wanted", "the helper module"]
    assert fitted[0].targets[0] == retrieval.Target("src/a.py", 8, 10)
    assert fitted[1].targets[0] == retrieval.Target("src/a.py")
