"""The brief benchmark's summary (benchmarks/brief.py) on hand-made rows."""

from __future__ import annotations

from typing import Any

from tests.benchmark_util import load_benchmark

bench = load_benchmark("brief")


def _row(brief_hit: bool, by_text: bool, size: int, to_target: int | None,
         search_hit: bool, search_tokens: int) -> dict[str, Any]:
    return {"brief": {"hit": brief_hit, "by_text": by_text, "tokens": size,
                      "to_target": to_target, "edges": 0},
            "search": {"hit": search_hit, "rank": 1 if search_hit else None,
                       "tokens": search_tokens}}


def test_medians_count_only_the_questions_a_method_reaches() -> None:
    rows = [_row(True, True, 200, 200, True, 600),
            _row(True, False, 300, 450, False, 900),  # brief names it, search misses
            _row(False, False, 2100, None, True, 800)]
    s = bench.summarise(rows)
    assert s["n"] == 3
    assert s["brief_hit"] == 2 / 3 and s["brief_text_hit"] == 1 / 3
    assert s["search_hit@3"] == 2 / 3
    assert s["brief_to_target_median"] == 325  # 200 and 450: to_target, not the size
    assert s["search_to_target_median"] == 700  # 600 and 800; the miss's 900 is out
    assert (s["paired_n"], s["paired_brief_median"], s["paired_search_median"]) == (1, 200, 600)
    assert s["brief_over_budget"] == 1 and s["brief_tokens_max"] == 2100


def test_no_rows_is_an_empty_summary() -> None:
    assert bench.summarise([]) == {"n": 0}


def test_cells_show_rates_as_percentages_and_counts_as_numbers() -> None:
    assert bench._cell("brief_hit", 1.0) == "100.0%"
    assert bench._cell("brief_tokens_median", 240.0) == "240"
    assert bench._cell("paired_n", 516) == "516"
    assert bench._cell("paired_brief_median", None) == "-"
