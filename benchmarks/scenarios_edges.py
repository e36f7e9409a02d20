"""Edge extraction (issue #22) against chunking, on the same real files (no model)."""

from __future__ import annotations

import itertools
import shutil

from harness import Context, Result, scenario, timed
from scenarios_chunk import FIXTURES, LARGE

from semlith.base.languages import Language, language_of
from semlith.ingest.chunk import chunk_file
from semlith.ingest.definitions import find_definitions
from semlith.ingest.graph import edges_from_tree, extract_edges, has_edges


def _compare(text: str, language: Language, runs: int) -> dict[str, float]:
    """p50/p95 of chunking, of extract_edges, and of the edges alone over a tree and
    definitions already made (what an indexer that parses once would add)."""
    data = text.encode("utf-8", "replace")
    from tree_sitter_language_pack import get_parser

    tree = get_parser(language.grammar).parse(data)
    definitions = find_definitions(text, language)
    chunk = timed(lambda: chunk_file(text, language), runs, warmup=2)
    edges = timed(lambda: extract_edges(text, language), runs, warmup=2)
    shared = timed(lambda: edges_from_tree(tree, data, language, definitions,
                                           deadline=float("inf")), runs, warmup=2)
    return {**{f"chunk_{k}": v for k, v in chunk.items()},
            **{f"edges_{k}": v for k, v in edges.items()},
            **{f"edges_shared_{k}": v for k, v in shared.items()},
            "ratio_p50": round(edges["p50_ms"] / chunk["p50_ms"], 2),
            "ratio_shared_p50": round(shared["p50_ms"] / chunk["p50_ms"], 2)}


@scenario("edges", sizes=[1], fast_sizes=[1])
def edges(ctx: Context, sizes: list[int]) -> Result:
    """extract_edges vs chunk_file per language (chunk's fixtures) and on _pydecimal.py."""
    runs = 5 if ctx.fast else 30
    metrics: dict[str, float | int | str] = {}
    totals = {"chunk": 0.0, "edges": 0.0, "shared": 0.0}
    for path in sorted(FIXTURES.glob("*")):
        lang = language_of(path)
        if lang is None or not has_edges(lang):
            continue
        one = _compare(path.read_text(), lang, runs)
        metrics[f"{lang.name}_ratio_p50"] = one["ratio_p50"]
        totals["chunk"] += one["chunk_p50_ms"]
        totals["edges"] += one["edges_p50_ms"]
        totals["shared"] += one["edges_shared_p50_ms"]
    metrics["fixtures_chunk_p50_ms"] = round(totals["chunk"], 2)
    metrics["fixtures_edges_p50_ms"] = round(totals["edges"], 2)
    metrics["fixtures_ratio"] = round(totals["edges"] / totals["chunk"], 2)
    metrics["fixtures_ratio_shared"] = round(totals["shared"] / totals["chunk"], 2)
    if LARGE.exists():
        large = _compare(LARGE.read_text(), language_of(LARGE.name), max(5, runs // 3))
        metrics.update({f"large_{k}": v for k, v in large.items()})
        calls = len(extract_edges(LARGE.read_text(), language_of(LARGE.name)).calls)
        chunks = len(chunk_file(LARGE.read_text(), language_of(LARGE.name)).chunks)
        metrics["large_calls"] = calls
        # Against the model: docs/performance.md's index runs embed ~38 chunks/s (26 ms a
        # chunk), so the edges' share of a real index run is this over 26.
        metrics["large_edges_ms_per_chunk"] = round(large["edges_p50_ms"] / chunks, 3)
        ctx.log(f"edges {LARGE.name}: {large}, {calls} calls")
        if not ctx.fast:
            metrics.update(_against_index(ctx))
    return {1: metrics}


def _against_index(ctx: Context) -> dict[str, float]:
    """Edges of a corpus against indexing it without a model (filler vectors): the
    upper bound of what extraction adds, since the model is most of a real index run."""
    from scenarios_chunk import _filler_library
    from scenarios_index import write_corpus

    runs = itertools.count()
    root = ctx.workdir / "edges-corpus"
    write_corpus(root, 60)
    shutil.copy(LARGE, root / LARGE.name)
    files = [(p.read_text(), language_of(p)) for p in sorted(root.glob("*.py"))]

    def index() -> None:
        copy = ctx.workdir / f"edges-index-{next(runs)}"
        shutil.copytree(root, copy)
        _filler_library(str(ctx.workdir / f"{copy.name}-h")).index([str(copy)])

    def extract_all() -> None:
        for text, lang in files:
            extract_edges(text, lang)  # type: ignore[arg-type]

    indexed = timed(index, 5, warmup=1)
    extracted = timed(extract_all, 5, warmup=1)
    return {"corpus_index_nomodel_p50_ms": indexed["p50_ms"],
            "corpus_edges_p50_ms": extracted["p50_ms"],
            "corpus_edges_vs_index_nomodel": round(extracted["p50_ms"] / indexed["p50_ms"], 3)}


def hostile_graphs(ctx: Context) -> dict[str, int | bool]:
    """Issue #47's adversarial graphs (tests/hostile_files.hostile_graph: a 20,000-call
    chain, a 2,000-function cycle, a function with 5,000 callers), indexed without a
    model: each graph answer's size in characters of JSON against its 4,000-token
    budget. Functional, not timed (the `hostile` scenario reports these beside its own)."""
    import json

    from scenarios_chunk import _filler_library

    from semlith.types import Filters, Scope
    from tests.hostile_files import CALLERS, CHAIN, CYCLE, hostile_graph

    root = ctx.workdir / "hostile-graph"
    for rel, text in hostile_graph().items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    library = _filler_library(str(ctx.workdir / "hostile-graph-h"))
    library.index([str(root)])
    scope, no = Scope((str(root),)), Filters()
    answers = {
        "chain_path": library.path("f0", f"f{CHAIN - 1}", filters=no, scope=scope),
        "cycle_path": library.path("g1", "g0", filters=no, scope=scope),
        "cycle_impact": library.impact("g0", depth=10, filters=no, scope=scope),
        "hub_neighbors": library.neighbors("target", filters=no, scope=scope),
        "hub_impact": library.impact("target", filters=no, scope=scope),
        "hub_brief": library.brief("target the function everything calls", scope=scope),
    }
    out: dict[str, int | bool] = {"graph_callers": CALLERS, "graph_cycle": CYCLE}
    for name, answer in answers.items():
        size = len(json.dumps(answer.as_json()))
        out[f"graph_{name}_chars"] = size
        # brief's budget counts its text; its JSON carries each row's fields besides
        limit = 2 * 2000 * 4 if name.endswith("brief") else 4000 * 4
        out[f"graph_{name}_within"] = size <= limit
    library.close()
    return out


def hostile_answers(ctx: Context) -> dict[str, int | bool]:
    """Issue #47's non-graph answers on an adversarial store, as the MCP tools format
    them (semlith/server/answers.py): a read of 21,000-character lines and of one line of
    420,000, a search naming sections under a 40,000-character heading, a name defined in
    forty files 2,600 characters deep, and `files` and `stats` over 181 stores. Each
    answer's characters, whether it is within its bound (max_tokens, else 20,000
    tokens) and ends saying what it left out. Functional, not timed."""
    from scenarios_chunk import _filler_library

    from semlith.server import answers
    from semlith.types import Filters, Scope

    root = ctx.workdir / "hostile-answers"
    deep = "/".join(["d" * 200] * 13)
    files = {"long.txt": ("walrus " * 3000 + "\n") * 50, "one.txt": "walrus " * 60_000 + "\n",
             "doc.md": "# " + "heading " * 5000 + "\n\n"
             + "".join(f"## part {i}\n\nwalrus notes {i}\n\n" for i in range(40))}
    files |= {f"{deep}/m{i:02d}.py": f"def run():\n    return {i}\n" for i in range(40)}
    # Other stores' roots as deep as SQLite opens a store in them (512 bytes a path).
    part = "s" * max(20, (440 - len(str(ctx.workdir))) // 2)
    files |= {f"../stores/{part}/{part}/store{n:03d}/a.txt": "walrus\n" for n in range(180)}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    library = _filler_library(str(ctx.workdir / "hostile-answers-h"))
    library.index([str(root)])
    for n in range(180):
        library.index([str(ctx.workdir / "stores" / part / part / f"store{n:03d}")])
    scope, every = Scope((str(root),)), Scope(("*",))
    found = library.search("walrus notes", k=50, filters=Filters(("doc.md",)), scope=scope)
    texts = {
        "read_long_lines": answers.passage(library.read("long.txt", scope=scope)),
        "read_one_line": answers.passage(library.read("one.txt", scope=scope)),
        "search_sections": answers.locate(found.hits, 2000, False),
        "symbol_deep": answers.definitions(library.symbol("run", scope=scope), "run", False),
        "files_stores": answers.files_text(library.files(scope=every), 5000),
        "stats_stores": answers.stats_text(library.stats(scope=every)),
    }
    library.close()
    out: dict[str, int | bool] = {}
    for name, text in texts.items():
        bound = 2000 * 4 if name.startswith("search") else answers.ANSWER_CHARS
        out[f"answer_{name}_chars"] = len(text)
        out[f"answer_{name}_within"] = len(text) <= bound
        out[f"answer_{name}_says"] = text.splitlines()[-1].startswith("(")
    return out
