"""Retrieval quality on the annotated development set: NDCG@10 and hit@k, per method.

    python benchmarks/retrieval.py --corpora /tmp/corpora [--method semlith --method bm25]
        [--corpus NAME ...] [--workdir DIR] [--json PATH] [--k 10] [--eval DIR]

The questions, the corpora and the metric are described in `shared/eval/README.md`.

Metric (semble's NDCG@10). A question's targets are `relevant` + `secondary`, each with
gain 1. A target is a path, or a span `{"path", "start_line", "end_line"}`. A hit
`(path, start_line, end_line)` covers a path target when the paths match, and a span
target when the paths match and the line ranges overlap (inclusive). Paths match when
they are equal or one ends with "/" + the other. Walk the top k hits in rank order
(rank 1 first); a hit earns 1 / log2(rank + 1) for the first target it covers that is
not yet credited; each target is credited once and each rank at most once. DCG is
divided by the ideal DCG, sum of 1 / log2(r + 1) for r = 1 .. min(k, number of targets).

hit@n is 1 when any of the top n hits covers any target (relevant or secondary), else 0.

definition@1 is measured over the questions with a span target (22 of 546: a definition,
or its first lines): the share whose first hit is in a span's file and holds every line
of the span (`definition@1`), or overlaps it (`definition@1 overlap`, what hit@1 counts
for them), beside the share whose first hit is in a span's file (`file@1`). A whole
definition as the answer reads 1 on all three; a fragment of it, 0 on the first.

A question whose targets are all missing on disk (no file at corpus folder / path) is
excluded; the count is reported per corpus. Means over corpora weigh corpora equally.

Method `bm25` rebuilds the README's baseline: the benchmark root's source files (their
language in `semlith.base.languages` has a tree-sitter grammar: .md, py.typed, images are out)
in non-overlapping 40-line windows; tokens are lowercased alphanumeric runs (snake_case
splits at "_") plus the parts of camelCase words; Okapi BM25, k1=1.2, b=0.75, with
rank_bm25's BM25Okapi idf. Mean over questions / corpora: 0.683 / 0.692 (README: 0.683 /
0.691). Other variants, untuned: whole snake_case words kept too + Lucene idf
ln(1 + (N - n + 0.5) / (n + 0.5)) 0.695 / 0.703; Lucene idf alone 0.676 / 0.685; from the
former, no identifier splitting 0.662 / 0.672, all known text files (docs in) 0.658 /
0.671, windows overlapping by 20 lines 0.665 / 0.673.

Method `semlith` indexes each corpus's benchmark root into `<workdir>/<corpus>` (reused
and updated incrementally across runs) and searches it through `semlith.local`. With
`--cache DIR` the stores and the embeddings are kept by corpus, model and chunking (see
vector_cache.py). With `--package` the whole package is indexed — the registry's
tests, docs, changelogs, examples and bundles beside the benchmark root — as a user who
downloads it would; questions and targets are the same, so the score shows what those
distractors cost. `--half tune|confirm` keeps one fixed half of the corpora (halves()).

With `--repos DIR` each corpus is its repository tree (shared/eval/extract-repos.py);
`--registry CORPORA` then fits the targets, anchored to the registry versions, to the
trees (tree_targets.py): spans move to where the tree holds their lines, and questions
whose target is a stub in the tree are excluded and counted.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

Locator = tuple[str, int, int]  # (path relative to the corpus folder, start_line, end_line)
Searcher = Callable[[str], list[Locator]]
EVAL_DIR = Path(__file__).resolve().parents[2] / "shared" / "eval"
CATEGORIES = ("semantic", "architecture", "symbol")


@dataclass(frozen=True, slots=True)
class Target:
    path: str
    start_line: int | None = None  # None: any hit in the file covers it
    end_line: int | None = None


@dataclass(frozen=True, slots=True)
class Question:
    corpus: str
    query: str
    category: str
    targets: tuple[Target, ...]


@dataclass(frozen=True, slots=True)
class Corpus:
    name: str
    folder: Path  # the corpus folder; annotation paths are relative to it
    root: str  # benchmark root, relative to `folder`: what gets indexed


@dataclass(frozen=True, slots=True)
class Scored:
    question: Question
    method: str
    ndcg: float
    hits: dict[int, int]  # n -> hit@n
    top: tuple[Locator, ...]
    definition: dict[str, int] | None = None  # definition_at_1's, for a span question


# --- the metric ---------------------------------------------------------------------------

def paths_match(a: str, b: str) -> bool:
    """Equal, or one is a suffix of the other at a "/" boundary."""
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def covers(hit: Locator, target: Target) -> bool:
    """Whether a hit covers a target: path match, plus line overlap for a span target."""
    path, start, end = hit
    if not paths_match(path, target.path):
        return False
    if target.start_line is None or target.end_line is None:
        return True
    return start <= target.end_line and target.start_line <= end


def ndcg_at_k(hits: Sequence[Locator], targets: Sequence[Target], k: int = 10) -> float:
    """semble's NDCG@k with binary gains; see the module docstring."""
    if not targets:
        raise ValueError("a question needs at least one target")
    credited: set[int] = set()
    dcg = 0.0
    for rank, hit in enumerate(hits[:k], start=1):
        for i, target in enumerate(targets):
            if i not in credited and covers(hit, target):
                credited.add(i)
                dcg += 1.0 / math.log2(rank + 1)
                break  # each rank credits at most one target
    ideal = sum(1.0 / math.log2(r + 1) for r in range(1, min(k, len(targets)) + 1))
    return dcg / ideal


def hit_at_k(hits: Sequence[Locator], targets: Sequence[Target], k: int) -> int:
    """1 when any of the top k hits covers any target, else 0."""
    return int(any(covers(h, t) for h in hits[:k] for t in targets))


DEFINITION_KEYS = ("file@1", "definition@1", "definition@1 overlap")


def definition_at_1(hits: Sequence[Locator], targets: Sequence[Target]
                    ) -> dict[str, int] | None:
    """For a question with span targets, whether its first hit is in a span's file,
    holds a span's every line, overlaps a span (1 or 0 each); None without a span."""
    spans = [(t.path, t.start_line, t.end_line) for t in targets
             if t.start_line is not None and t.end_line is not None]
    if not spans:
        return None
    if not hits:
        return dict.fromkeys(DEFINITION_KEYS, 0)
    path, start, end = hits[0]
    same = [(first, last) for where, first, last in spans if paths_match(path, where)]
    return {"file@1": int(bool(same)),
            "definition@1": int(any(start <= first and last <= end for first, last in same)),
            "definition@1 overlap": int(any(start <= last and first <= end
                                            for first, last in same))}


# --- the development set ------------------------------------------------------------------

def parse_target(raw: str | dict[str, Any]) -> Target:
    if isinstance(raw, str):
        return Target(raw)
    return Target(raw["path"], int(raw["start_line"]), int(raw["end_line"]))


def halves(entries: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Corpus name -> "tune" or "confirm": sorted by (language, name), alternately.

    A fixed rule rather than a hand-picked list, so each language is split as evenly as
    it can be (at most one apart) and nobody can move a corpus to flatter a change.
    """
    ordered = sorted(entries, key=lambda e: (e["language"], e["name"]))
    return {e["name"]: ("tune", "confirm")[i % 2] for i, e in enumerate(ordered)}


def load_corpora(eval_dir: Path, corpora_dir: Path, names: Sequence[str],
                 half: str | None = None, repos: Path | None = None) -> list[Corpus]:
    """Corpora from corpora.json, in its order, limited to `names` and `half` when given.

    With `repos` (a folder made by shared/eval/extract-repos.py), each corpus is its
    repository tree there, with the benchmark root its manifest records; corpora the
    manifest lacks (their revision was not available) are left out, as they would be
    from the repository shape anyway.
    """
    entries = json.loads((eval_dir / "corpora.json").read_text())
    if repos is not None:
        manifest = json.loads((repos.parent / f"{repos.name}.manifest.json").read_text())
        entries = [{**e, "benchmark_root": manifest[e["name"]]["root"]}
                   for e in entries if e["name"] in manifest]
        corpora_dir = repos
    known = [e["name"] for e in entries]
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise SystemExit(f"unknown corpus {unknown!r}; known: {', '.join(known)}")
    split = halves(json.loads((eval_dir / "corpora.json").read_text()))
    chosen = [e for e in entries if (not names or e["name"] in names)
              and (half is None or split[e["name"]] == half)]
    corpora = [Corpus(e["name"], corpora_dir / e["name"], e["benchmark_root"]) for e in chosen]
    for c in corpora:
        if not (c.folder / c.root).is_dir():
            raise SystemExit(f"{str(c.folder / c.root)!r} is missing; run get-corpora.sh")
    return corpora


def _target_file(corpus: Corpus, rel: str) -> Path | None:
    # Paths are relative to the corpus folder, or (xmonad, pandoc) to the root.
    for path in (corpus.folder / rel, corpus.folder / corpus.root / rel):
        if path.is_file():
            return path
    return None


def load_questions(eval_dir: Path, corpus: Corpus, registry: Corpus | None = None
                   ) -> tuple[list[Question], int]:
    """The corpus's questions, and how many were excluded (every target missing on disk).

    With `registry` (the same corpus as its registry version, which the annotations'
    spans are anchored to) the questions are fitted to this corpus's files, a repository
    tree at another revision (tree_targets.py): spans move to where the tree holds their
    lines, and a question with a target that does not fit is excluded too.
    """
    raw = json.loads((eval_dir / "annotations" / f"{corpus.name}.json").read_text())
    kept: list[Question] = []
    for q in raw:
        targets = tuple(parse_target(t) for t in [*q["relevant"], *q.get("secondary", [])])
        if not any(_target_file(corpus, t.path) for t in targets):
            continue
        if registry is not None:
            fitted = _fit(targets, registry, corpus)
            if fitted is None:
                continue
            targets = fitted
        kept.append(Question(corpus.name, q["query"], q["category"], targets))
    return kept, len(raw) - len(kept)


def _fit(targets: tuple[Target, ...], registry: Corpus, tree: Corpus
         ) -> tuple[Target, ...] | None:
    from tree_targets import fit_target

    out = []
    for t in targets:
        old, new = _target_file(registry, t.path), _target_file(tree, t.path)
        if old is None or new is None:  # the missing-file rule above decides on those
            out.append(t)
            continue
        lines = fit_target(old, new, t.start_line, t.end_line)
        if lines is None:
            return None
        out.append(Target(t.path, *lines))
    return tuple(out)


# --- BM25 baseline ------------------------------------------------------------------------

# Words are alphanumeric runs, so snake_case splits at "_" like any punctuation.
_WORD = re.compile(r"[A-Za-z0-9]+")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
WINDOW_LINES = 40


def tokenize(text: str) -> list[str]:
    """Lowercased alphanumeric words; a camelCase word also adds its parts."""
    tokens: list[str] = []
    for word in _WORD.findall(text):
        tokens.append(word.lower())
        parts = _PART.findall(word)
        if len(parts) > 1:
            tokens.extend(p.lower() for p in parts)
    return tokens


def source_files(root: Path) -> list[Path]:
    """Files whose language has a tree-sitter grammar (a programming language), sorted."""
    from semlith.base.languages import language_of

    found = []
    for path in sorted(root.rglob("*")):
        lang = language_of(path)
        if path.is_file() and lang is not None and lang.grammar is not None:
            found.append(path)
    return found


def windows(path: Path, rel: str) -> list[tuple[Locator, str]]:
    """Non-overlapping WINDOW_LINES-line windows of a file, 1-based inclusive lines."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    out = []
    for start in range(0, len(lines), WINDOW_LINES):
        chunk = lines[start:start + WINDOW_LINES]
        out.append(((rel, start + 1, start + len(chunk)), "\n".join(chunk)))
    return out


def okapi_idf(doc_freq: dict[str, int], n: int, epsilon: float = 0.25) -> dict[str, float]:
    """rank_bm25's BM25Okapi idf: ln((N - n + 0.5) / (n + 0.5)), negatives floored."""
    raw = {t: math.log((n - f + 0.5) / (f + 0.5)) for t, f in doc_freq.items()}
    floor = epsilon * sum(raw.values()) / max(len(raw), 1)
    return {t: v if v >= 0 else floor for t, v in raw.items()}


class BM25:
    """Okapi BM25 over token lists, k1=1.2, b=0.75, idf as rank_bm25's BM25Okapi.

    A term in more than half the windows would get a negative idf; like rank_bm25 it gets
    0.25 x the mean idf instead. Repeated query tokens count once per occurrence.
    """

    def __init__(self, docs: Sequence[list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        lengths = np.array([len(d) for d in docs], dtype=np.float64)
        avg = float(lengths.mean()) if len(docs) else 1.0
        self.norm = k1 * (1.0 - b + b * lengths / max(avg, 1e-9))
        self.k1 = k1
        postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                postings[term].append((i, tf))
        self.postings = {t: (np.array([d for d, _ in p]), np.array([f for _, f in p], float))
                         for t, p in postings.items()}
        self.idf = okapi_idf({t: len(p) for t, p in postings.items()}, len(docs))
        self.size = len(docs)

    def top(self, query: list[str], k: int) -> list[int]:
        """Indices of the k best-scoring documents with a positive score."""
        scores = np.zeros(self.size)
        for term in query:
            if term not in self.postings:
                continue
            ids, tf = self.postings[term]
            scores[ids] += self.idf[term] * tf * (self.k1 + 1) / (tf + self.norm[ids])
        order = np.argsort(-scores, kind="stable")[:k]
        return [int(i) for i in order if scores[i] > 0]


def bm25_searcher(corpus: Corpus, k: int) -> Searcher:
    """Index the benchmark root's source files in 40-line windows; return a search function."""
    root = corpus.folder / corpus.root
    locators: list[Locator] = []
    docs: list[list[str]] = []
    for path in source_files(root):
        for loc, text in windows(path, path.relative_to(corpus.folder).as_posix()):
            locators.append(loc)
            docs.append(tokenize(text))
    index = BM25(docs)
    return lambda query: [locators[i] for i in index.top(tokenize(query), k)]


# --- semlith ------------------------------------------------------------------------------

def semlith_factory(workdir: Path, k: int, cache: Path | None = None,
                    model: str | None = None, package: bool = False,
                    backend: str | None = None, tree: bool = False,
                    together: Sequence[Corpus] = (), beside: Sequence[Path] = ()
                    ) -> Callable[[Corpus], AbstractContextManager[Searcher]]:
    """Index each corpus into a store (incrementally), then search that store.

    With `together` (every corpus of the run), all of them are indexed first and each
    question is asked of all their stores at once, as a person searching `--store '*'`:
    a hit from another corpus's store counts as irrelevant (issue #45: one ranking across
    stores; the goal is each corpus within 0.01 NDCG of itself searched alone). With
    `beside` (folders), each question is asked of its corpus's store and of a store of
    each folder: a person with the bundled sample indexed beside their project.

    With `backend` (a Milvus target) each corpus is a new store of that backend, its repo
    named after the corpus (the embeddings still come from the cache when there is one).

    Without `cache` the store is <workdir>/<name>. With it, the store is
    <cache>/stores/<name>-<model>-<ingest fingerprint> and every embedding goes through
    <cache>/vectors.db (see vector_cache.py): a ranking change reuses the stores as they
    are, a chunking change embeds only chunk texts never seen before.
    """
    from semlith.base.settings import Settings
    from semlith.embed.text import DEFAULT_MODEL
    from semlith.local import LocalLibrary
    from semlith.types import Scope

    settings = Settings.load()
    name = model or DEFAULT_MODEL
    factory = None
    if cache is not None:
        from vector_cache import cached_models

        factory, suffix = cached_models(cache, name, settings)
        workdir = cache / "stores"
    else:
        suffix = ""
    library = LocalLibrary(settings, embedder_factory=factory)
    shape = "-package" if package else "-repo" if tree else ""
    stores: dict[str, str] = {}  # corpus name -> its store folder, once indexed

    def index(corpus: Corpus) -> Path:
        root = corpus.folder if package else corpus.folder / corpus.root
        store_dir = workdir / f"{corpus.name}{shape}{suffix}"
        target = None
        if backend is not None:  # rows live in that engine: a store of its own each run
            store_dir = store_dir.with_name(store_dir.name + "-milvus")
            shutil.rmtree(store_dir, ignore_errors=True)
            target = f"{backend}{'&' if '?' in backend else '?'}repo={corpus.name}"
        report = library.index([str(root)], store=str(store_dir), model=name, backend=target)
        print(f"  semlith  {corpus.name:14} {report.summary()}")
        stores[corpus.name] = str(store_dir)
        return store_dir

    extra = []
    for folder in (f.resolve() for f in beside):
        extra_dir = workdir / f"beside-{folder.name}{suffix}"
        print(f"  semlith  {folder.name:14} " + library.index(
            [str(folder)], store=str(extra_dir), model=name).summary())
        extra.append(str(extra_dir))

    @contextmanager
    def prepare(corpus: Corpus) -> Iterator[Searcher]:
        store_dir = index(corpus)
        for other in together:
            if other.name not in stores:
                index(other)
        prefix = "" if package else corpus.root.strip("/")
        own = library.stats(scope=Scope((str(store_dir),)))[0].name
        scope = Scope((*(stores.values() if together else (str(store_dir),)), *extra))

        def run(query: str) -> list[Locator]:
            return [(f"{prefix}/{h.path}" if prefix else h.path, h.start_line, h.end_line)
                    if h.store == own else (f"{h.store}:{h.path}", h.start_line, h.end_line)
                    for h in library.search(query, k=k, scope=scope).hits]
        yield run
    return prepare


# --- running and reporting ----------------------------------------------------------------

def score(question: Question, method: str, top: list[Locator], k: int) -> Scored:
    hits = {n: hit_at_k(top, question.targets, n) for n in (1, 5, k)}
    return Scored(question, method, ndcg_at_k(top, question.targets, k), hits, tuple(top[:k]),
                  definition_at_1(top, question.targets))


def run_method(method: str, prepare: Callable[[Corpus], AbstractContextManager[Searcher]],
               questions: dict[str, list[Question]], corpora: Sequence[Corpus],
               k: int) -> list[Scored]:
    """Prepare and query every corpus with one method, printing the time each took."""
    results: list[Scored] = []
    started = time.perf_counter()
    for corpus in corpora:
        t0 = time.perf_counter()
        with prepare(corpus) as searcher:
            t1 = time.perf_counter()
            for q in questions[corpus.name]:
                results.append(score(q, method, searcher(q.query), k))
            t2 = time.perf_counter()
        print(f"  {method:8} {corpus.name:14} prepare {t1 - t0:7.2f}s  "
              f"search {t2 - t1:6.2f}s ({len(questions[corpus.name])} queries)")
    print(f"  {method:8} total {time.perf_counter() - started:.2f}s")
    return results


def summarise(rows: Sequence[Scored], k: int) -> dict[str, float | int]:
    """Mean NDCG@k and hit@n over `rows`, and their number."""
    if not rows:
        return {"n": 0}
    out: dict[str, float | int] = {f"ndcg@{k}": float(np.mean([r.ndcg for r in rows]))}
    for n in rows[0].hits:
        out[f"hit@{n}"] = float(np.mean([r.hits[n] for r in rows]))
    out["n"] = len(rows)
    return out


def summarise_definitions(rows: Sequence[Scored]) -> dict[str, float | int]:
    """definition@1 and its neighbours over the rows with a span target, and their number."""
    spans = [r.definition for r in rows if r.definition is not None]
    if not spans:
        return {"n": 0}
    return {**{key: float(np.mean([d[key] for d in spans])) for key in DEFINITION_KEYS},
            "n": len(spans)}


def aggregate(rows: Sequence[Scored], corpora: Sequence[Corpus], k: int) -> dict[str, Any]:
    """One method's report: per corpus, per category, mean over questions and over corpora."""
    per_corpus = {c.name: summarise([r for r in rows if r.question.corpus == c.name], k)
                  for c in corpora}
    per_category = {cat: summarise([r for r in rows if r.question.category == cat], k)
                    for cat in CATEGORIES}
    scored = [s for s in per_corpus.values() if s["n"]]
    over_corpora = {key: float(np.mean([s[key] for s in scored]))
                    for key in scored[0] if key != "n"} if scored else {}
    return {"mean_over_questions": summarise(rows, k),
            "mean_over_corpora": {**over_corpora, "n": len(scored)},
            "per_corpus": per_corpus, "per_category": per_category,
            "definitions": {"all": summarise_definitions(rows), **{
                cat: summarise_definitions([r for r in rows if r.question.category == cat])
                for cat in CATEGORIES}}}


def print_table(report: dict[str, dict[str, Any]], excluded: dict[str, int], k: int) -> None:
    """Rows: corpora, categories, the two means; columns: each method's metrics side by side."""
    keys, widths = [f"ndcg@{k}", "hit@1", "hit@5", f"hit@{k}"], (10, 8, 8, 8)
    group = sum(widths)
    head = f"{'':22}{'n':>4}{'excl':>5}" + "".join(
        " | " + "".join(f"{key:>{w}}" for key, w in zip(keys, widths, strict=True))
        for _ in report)
    print("\n" + f"{'':31}" + "".join(f" | {m[:group]:<{group}}" for m in report))
    print(head + "\n" + "-" * len(head))

    def line(label: str, section: str, name: str | None, excl: str) -> None:
        stats = [r[section] if name is None else r[section][name] for r in report.values()]
        cells = "".join(" | " + "".join(f"{st.get(key, float('nan')):>{w}.3f}"
                                        for key, w in zip(keys, widths, strict=True))
                        for st in stats)
        print(f"{label:22}{stats[0].get('n', 0):>4}{excl:>5}{cells}")

    for corpus, count in excluded.items():
        line(corpus, "per_corpus", corpus, str(count))
    for cat in CATEGORIES:
        line(f"[{cat}]", "per_category", cat, "")
    print("-" * len(head))
    line("mean over questions", "mean_over_questions", None, str(sum(excluded.values())))
    line("mean over corpora", "mean_over_corpora", None, "")
    for method, r in report.items():
        d = r.get("definitions", {}).get("all", {"n": 0})
        if d["n"]:
            print(f"{method}: over the {d['n']} questions with a span: " + ", ".join(
                f"{key} {d[key]:.3f}" for key in DEFINITION_KEYS))


def locator_text(loc: Locator) -> str:
    return f"{loc[0]}:{loc[1]}-{loc[2]}"


def per_query_json(rows: Sequence[Scored]) -> list[dict[str, Any]]:
    return [{"corpus": r.question.corpus, "query": r.question.query,
             "category": r.question.category, "method": r.method, "ndcg": round(r.ndcg, 6),
             **{f"hit@{n}": v for n, v in r.hits.items()}, **(r.definition or {}),
             "top": [locator_text(loc) for loc in r.top]} for r in rows]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--corpora", type=Path, help="folder made by get-corpora.sh")
    p.add_argument("--repos", type=Path,
                   help="score the repository trees in this folder instead (made by "
                   "shared/eval/extract-repos.py; the corpora its manifest holds)")
    p.add_argument("--registry", type=Path,
                   help="with --repos: the registry corpora (get-corpora.sh) the "
                   "annotations are anchored to; targets are fitted to the trees "
                   "(tree_targets.py) and questions whose targets do not fit are excluded")
    p.add_argument("--eval", type=Path, default=EVAL_DIR, help="corpora.json + annotations/")
    p.add_argument("--workdir", type=Path, default=Path("/tmp/semlith-retrieval"))
    p.add_argument("--cache", type=Path, help="reuse stores and embeddings kept here "
                   "(keyed by corpus, model and chunking; see vector_cache.py)")
    p.add_argument("--model", help="embedding model (default: semlith's default)")
    p.add_argument("--backend", help="index into this Milvus target (docs/scale-out.md)")
    p.add_argument("--package", action="store_true",
                   help="index each corpus's whole package (tests, docs, changelogs and "
                   "all), not just its benchmark root: the distractors real repositories "
                   "have (semlith only; BM25 stays on the root)")
    p.add_argument("--corpus", action="append", default=[], help="limit to a corpus (repeat)")
    p.add_argument("--half", choices=["tune", "confirm"],
                   help="only the tune or the confirm half of the corpora (see halves())")
    p.add_argument("--method", action="append", choices=["semlith", "bm25"], default=[])
    p.add_argument("--together", action="store_true",
                   help="ask each question of every corpus's store at once (semlith only): "
                   "other stores' hits count as irrelevant; compare with a run without it")
    p.add_argument("--beside", type=Path, action="append", default=[], metavar="DIR",
                   help="ask each question of its corpus's store and of a store of DIR "
                   "too (repeat; semlith only), e.g. fixtures/sample")
    p.add_argument("--json", type=Path, help="write the full report here")
    p.add_argument("--k", type=int, default=10)
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if (args.corpora is None) == (args.repos is None):
        raise SystemExit("give --corpora (the packages) or --repos (the repository trees)")
    if args.registry and not args.repos:
        raise SystemExit("--registry fits the targets to the trees: give --repos too")
    corpora = load_corpora(args.eval, (args.corpora or args.repos).resolve(), args.corpus,
                           args.half, args.repos.resolve() if args.repos else None)
    questions: dict[str, list[Question]] = {}
    excluded: dict[str, int] = {}
    registries = {c.name: c for c in load_corpora(args.eval, args.registry.resolve(), [
        c.name for c in corpora])} if args.registry else {}
    for corpus in corpora:
        questions[corpus.name], excluded[corpus.name] = load_questions(
            args.eval, corpus, registries.get(corpus.name))
    methods = list(dict.fromkeys(args.method)) or ["semlith", "bm25"]
    rows: list[Scored] = []
    report: dict[str, dict[str, Any]] = {}
    for method in methods:
        prepare: Callable[[Corpus], AbstractContextManager[Searcher]] = (
            semlith_factory(args.workdir.resolve(), args.k,
                            args.cache.resolve() if args.cache else None, args.model,
                            args.package, args.backend, args.repos is not None,
                            corpora if args.together else (), args.beside)
            if method == "semlith"
            else lambda c: nullcontext(bm25_searcher(c, args.k)))
        found = run_method(method, prepare, questions, corpora, args.k)
        report[method] = aggregate(found, corpora, args.k)
        rows.extend(found)
    print_table(report, excluded, args.k)
    if args.json:
        args.json.write_text(json.dumps({"methods": report, "excluded": excluded,
                                         "per_query": per_query_json(rows)}, indent=1))
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
