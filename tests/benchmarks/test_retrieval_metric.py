"""The retrieval benchmark's metric (benchmarks/retrieval.py) on small hand-made cases."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "retrieval.py"
_spec = importlib.util.spec_from_file_location("retrieval_benchmark", _PATH)
assert _spec is not None and _spec.loader is not None
retrieval = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = retrieval  # dataclasses look the module up while building
_spec.loader.exec_module(retrieval)

Target = retrieval.Target
ndcg_at_k = retrieval.ndcg_at_k
hit_at_k = retrieval.hit_at_k


def _g(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


@pytest.mark.parametrize(("a", "b", "match"), [
    ("fastapi/routing.py", "fastapi/routing.py", True),
    ("fastapi/routing.py", "routing.py", True),
    ("routing.py", "src/fastapi/routing.py", True),
    ("fastapi/routing.py", "outing.py", False),  # not at a "/" boundary
    ("fastapi/routing.py", "fastapi/routing.pyi", False),
    ("a/b.py", "c/b.py", False),
])
def test_paths_match_at_a_slash_boundary(a: str, b: str, match: bool) -> None:
    assert retrieval.paths_match(a, b) is match


def test_span_target_needs_inclusive_line_overlap() -> None:
    span = Target("lib/x.rb", 10, 20)
    assert retrieval.covers(("lib/x.rb", 20, 30), span)  # touches the last line
    assert retrieval.covers(("x.rb", 1, 10), span)  # touches the first line
    assert not retrieval.covers(("lib/x.rb", 21, 40), span)
    assert not retrieval.covers(("lib/y.rb", 10, 20), span)
    assert retrieval.covers(("lib/x.rb", 900, 990), Target("lib/x.rb"))


def test_single_target_at_rank_one_is_perfect_and_rank_three_is_half() -> None:
    t = [Target("a.py")]
    assert ndcg_at_k([("a.py", 1, 40)], t) == pytest.approx(1.0)
    hits = [("b.py", 1, 40), ("c.py", 1, 40), ("a.py", 1, 40)]
    assert ndcg_at_k(hits, t) == pytest.approx(0.5)


def test_second_hit_in_a_credited_file_earns_nothing_and_uses_a_slot() -> None:
    targets = [Target("a.py"), Target("b.py")]
    hits = [("a.py", 1, 40), ("a.py", 41, 80), ("b.py", 1, 40)]
    assert ndcg_at_k(hits, targets) == pytest.approx((_g(1) + _g(3)) / (_g(1) + _g(2)))


def test_one_hit_credits_at_most_one_target() -> None:
    # Two span targets in one file; a single hit overlapping both earns one gain only.
    targets = [Target("a.py", 1, 10), Target("a.py", 11, 20)]
    assert ndcg_at_k([("a.py", 1, 40)], targets) == pytest.approx(_g(1) / (_g(1) + _g(2)))
    both = [("a.py", 1, 40), ("a.py", 5, 15)]
    assert ndcg_at_k(both, targets) == pytest.approx(1.0)


def test_hits_beyond_k_do_not_count_and_ideal_caps_at_k() -> None:
    hits = [(f"miss{i}.py", 1, 1) for i in range(10)] + [("a.py", 1, 1)]
    assert ndcg_at_k(hits, [Target("a.py")], k=10) == 0.0
    targets = [Target(f"t{i}.py") for i in range(12)]
    assert ndcg_at_k([(f"t{i}.py", 1, 1) for i in range(10)], targets) == pytest.approx(1.0)


def test_question_without_targets_is_rejected() -> None:
    with pytest.raises(ValueError, match="target"):
        ndcg_at_k([("a.py", 1, 1)], [])


def test_hit_at_k_is_any_target_within_the_top_k() -> None:
    targets = [Target("a.py"), Target("b.py", 5, 6)]
    hits = [("x.py", 1, 1), ("y.py", 1, 1), ("b.py", 1, 5)]
    assert [hit_at_k(hits, targets, n) for n in (1, 2, 3, 10)] == [0, 0, 1, 1]
    assert hit_at_k([], targets, 10) == 0


def test_tokenize_splits_camel_case_and_snake_case() -> None:
    assert retrieval.tokenize("APIRouter format_arg") == ["apirouter", "api", "router",
                                                         "format", "arg"]


def test_definition_at_1_needs_the_first_hit_to_hold_the_whole_span() -> None:
    span = [Target("lib/x.py"), Target("lib/x.py", 10, 30)]
    whole = retrieval.definition_at_1([("x.py", 8, 30), ("y.py", 1, 5)], span)
    assert whole == {"file@1": 1, "definition@1": 1, "definition@1 overlap": 1}
    part = retrieval.definition_at_1([("lib/x.py", 12, 40)], span)  # a fragment of it
    assert part == {"file@1": 1, "definition@1": 0, "definition@1 overlap": 1}
    near = retrieval.definition_at_1([("lib/x.py", 31, 40), ("lib/x.py", 10, 30)], span)
    assert near == {"file@1": 1, "definition@1": 0, "definition@1 overlap": 0}
    other = retrieval.definition_at_1([("lib/y.py", 10, 30)], span)
    assert other == {"file@1": 0, "definition@1": 0, "definition@1 overlap": 0}
    assert retrieval.definition_at_1([], span) == dict.fromkeys(retrieval.DEFINITION_KEYS, 0)
    assert retrieval.definition_at_1([("lib/x.py", 1, 9)], [Target("lib/x.py")]) is None


def test_definition_at_1_is_summarised_over_the_span_questions_only() -> None:
    def row(query: str, targets: tuple[Target, ...], top: list[tuple[str, int, int]]
            ) -> retrieval.Scored:
        q = retrieval.Question("c", query, "symbol", targets)
        return retrieval.score(q, "semlith", top, 10)

    rows = [row("a", (Target("a.py", 1, 9),), [("a.py", 1, 9)]),
            row("b", (Target("b.py", 5, 9),), [("b.py", 6, 20)]),
            row("c", (Target("c.py"),), [("d.py", 1, 9)])]
    summary = retrieval.summarise_definitions(rows)
    assert summary == {"file@1": 1.0, "definition@1": 0.5, "definition@1 overlap": 1.0,
                       "n": 2}
    assert retrieval.summarise_definitions(rows[2:]) == {"n": 0}
