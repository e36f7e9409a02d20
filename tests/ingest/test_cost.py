"""A code file's cost judged before its parse (issue #43): data tables and files too large
for the memory budget are cut as text and say why; every hostile shape stays bounded."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from semlith.index.cutting import cut
from semlith.ingest import parse as parsing
from semlith.ingest.cost import (
    DATA_TABLE_BYTES,
    TEXT_BYTES_PER_BYTE,
    TooLarge,
    file_allowance,
    parse_cost,
    table_share,
    text_reason,
)
from semlith.ingest.walk import Candidate
from tests.hostile_files import (
    EXTENSIONS,
    TABLE_LANGUAGES,
    data_table,
    huge_string,
    minified_line,
    nested_expression,
)

DEFAULT = file_allowance(512 << 20)


def candidate(tmp_path: Path, name: str, text: str) -> Candidate:
    path = tmp_path / name
    path.write_text(text)
    st = path.stat()
    return Candidate(path, name, st.st_size, st.st_mtime_ns, False)


@pytest.mark.parametrize("name", [n for n in TABLE_LANGUAGES if n != "haskell"])
def test_a_generated_table_is_cut_as_text_and_says_why(name: str, tmp_path: Path) -> None:
    done = cut(candidate(tmp_path, f"gen.{EXTENSIONS[name]}", data_table(name)), DEFAULT)
    assert done.chunked.strategy.startswith("lines (data table: "), done.chunked.strategy
    assert done.chunked.chunks and not done.chunked.symbols
    assert done.edges is None or done.edges.failed.startswith("cut as text: data table")


def test_a_haskell_table_alternates_two_shapes_and_is_parsed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsing, "PARSE_SECONDS", 600.0)  # the route, not the clock
    text = data_table("haskell")
    assert 0.4 < table_share(text.encode()) < 0.6  # a signature line, then an equation
    assert cut(candidate(tmp_path, "gen.hs", text), DEFAULT).chunked.strategy == "definitions"


def test_hand_written_code_is_not_a_table(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsing, "PARSE_SECONDS", 600.0)  # the route, not the clock
    module = "".join(f"def handler_{i}(request, ctx):\n    value = lookup(request, {i})\n"
                     f"    if value is None:\n        raise KeyError({i})\n"
                     f"    return render(ctx, value)\n\n\n" for i in range(900))
    assert len(module) > DATA_TABLE_BYTES and table_share(module.encode()) < 0.3
    assert cut(candidate(tmp_path, "views.py", module), DEFAULT).chunked.strategy == \
        "definitions"


def test_a_small_table_is_parsed() -> None:
    small = data_table("python", DATA_TABLE_BYTES // 2).encode()
    assert table_share(small) > 0.9 and text_reason(small, "python", DEFAULT) == ""


def test_a_file_whose_parse_is_over_the_budget_is_cut_as_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsing, "PARSE_SECONDS", 600.0)  # the route, not the clock
    module = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(2_000))
    allowance = parse_cost(module.encode(), "python") - 1  # one byte short
    done = cut(candidate(tmp_path, "big.py", module), allowance)
    assert done.chunked.strategy.startswith("lines (parsing it needs ~"), \
        done.chunked.strategy
    assert "SEMLITH_INDEX_MEMORY" in done.chunked.strategy
    assert cut(candidate(tmp_path, "big.py", module), allowance + 1).chunked.strategy == \
        "definitions"


def test_a_file_whose_text_is_over_the_budget_is_skipped_as_too_large(tmp_path: Path) -> None:
    with pytest.raises(TooLarge, match="over a quarter of the memory budget"):
        cut(candidate(tmp_path, "notes.txt", "words\n" * 10_000), 1_000)


SHAPES: dict[str, Callable[[str], str]] = {
    "table": lambda n: data_table(n, 200_000),
    "nested": lambda n: nested_expression(n, 20_000),
    "string": lambda n: huge_string(n, 400_000),
    "minified": lambda n: minified_line(n, 200_000),
}


@pytest.mark.slow
@pytest.mark.parametrize("shape", SHAPES)
def test_every_hostile_shape_is_cut_within_bounds_in_every_language(
        shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each shape in each of the 20 chunked languages: cut (or refused as generated) with
    what Python holds at its peak (the tree included: py-tree-sitter allocates it
    through Python) within what `cost.py` predicted before the parse, and the store gets
    chunks or a reason. Fails when a grammar upgrade makes its trees costlier than
    `BYTES_PER_TOKEN` says."""
    monkeypatch.setattr(parsing, "PARSE_SECONDS", 600.0)  # memory, not the clock
    from semlith.ingest.generated import Generated

    for name in TABLE_LANGUAGES:
        text = SHAPES[shape](name)
        item = candidate(tmp_path, f"{shape}.{EXTENSIONS[name]}", text)
        tracemalloc.start()
        try:
            done = cut(item, DEFAULT)
            peak = tracemalloc.get_traced_memory()[1]
        except Generated as exc:  # one line of code: minified, skipped with the reason
            peak = tracemalloc.get_traced_memory()[1]
            assert shape in ("minified", "string") and "minified" in str(exc), (name, exc)
            continue
        finally:
            tracemalloc.stop()
        bound = max(parse_cost(text.encode(), name), TEXT_BYTES_PER_BYTE * len(text))
        assert peak < bound + (4 << 20), (name, shape, peak, bound)
        assert done.chunked.chunks, (name, shape)
