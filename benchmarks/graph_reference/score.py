"""Score a candidate code graph's call edges against a reference (#22).

    python benchmarks/graph_reference/score.py REFERENCE.json CANDIDATE.json
        [REFERENCE.json CANDIDATE.json ...] [--prefix DIR] [--json OUT.json]

The reference is an oracle's output (reference.py; .json or .json.gz). The candidate is
a JSON list of claims, or an object whose "edges" holds that list; a claim is

    {"caller_path", "call_line", "callee_path", "callee_start_line", "status"}
    {"caller_path", "call_line", "status": "ambiguous",
     "candidates": [{"callee_path", "callee_start_line"}, ...]}

with paths relative to the corpus root (``--prefix DIR`` is prepended to a candidate's
paths when they are relative to a sub-folder, e.g. ``--prefix src/requests``), and
lines as reference.py defines them. ``status`` is any label (semlith's are extracted,
resolved, ambiguous); a claim with no status is "ambiguous" when it lists several
candidates and "unlabelled" otherwise.

Rules:

- Scope: only claims whose caller file is one of the reference's ``files`` count (all
  claims when the reference lists none); claims elsewhere are reported as out of scope.
  Identical claims count once.
- Match: a claim is correct when (caller_path, call_line, callee_path,
  callee_start_line) equals a reference edge for at least one of its callees, so an
  ambiguous claim is correct when the true callee is among its candidates.
- Judged: a correct claim, or one whose call site (caller_path, call_line) has no call
  the oracle left unresolved. A wrong claim on a line the oracle could not answer may
  be the oracle's blind spot, so it is not judged.
- Precision per status = correct / judged; strict precision = correct / all claims.
- Ambiguous share = ambiguous claims / all claims in scope; also the mean number of
  candidates of an ambiguous claim.
- Recall = reference edges matched by a claim that is not ambiguous / reference
  edges; recall with ambiguous also counts the candidates of ambiguous claims.
- Several reference/candidate pairs are scored one by one and summed per language
  (the reference's ``meta.language``): counts are added, then divided.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reference import Reference, load

Key = tuple[str, int, str, int]  # caller_path, call_line, callee_path, callee_start_line


@dataclass(frozen=True, slots=True)
class Claim:
    """A candidate's answer at one call site: a status and one or more callees."""

    caller_path: str
    call_line: int
    status: str
    callees: frozenset[tuple[str, int]]


@dataclass(slots=True)
class Tally:
    """Counts for one status (or for all), summed over pairs before dividing."""

    claims: int = 0
    judged: int = 0
    correct: int = 0
    candidates: int = 0

    def add(self, other: Tally) -> None:
        self.claims += other.claims
        self.judged += other.judged
        self.correct += other.correct
        self.candidates += other.candidates


@dataclass(slots=True)
class Score:
    """One pair's (or one language's) result."""

    statuses: dict[str, Tally]
    reference_edges: int = 0
    recalled: int = 0
    recalled_any: int = 0
    out_of_scope: int = 0

    def add(self, other: Score) -> None:
        for status, tally in other.statuses.items():
            self.statuses.setdefault(status, Tally()).add(tally)
        self.reference_edges += other.reference_edges
        self.recalled += other.recalled
        self.recalled_any += other.recalled_any
        self.out_of_scope += other.out_of_scope


def load_claims(path: Path, prefix: str = "") -> list[Claim]:
    """Read a candidate file; ``prefix`` is joined in front of every path."""
    raw = path.read_bytes()
    data = json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)
    rows = data["edges"] if isinstance(data, dict) else data
    return sorted({_claim(row, prefix) for row in rows}, key=repr)


def _claim(row: dict[str, Any], prefix: str) -> Claim:
    def joined(relative: str) -> str:
        return f"{prefix.rstrip('/')}/{relative}" if prefix else relative

    listed = row.get("candidates") or [row]
    callees = frozenset((joined(c["callee_path"]), int(c["callee_start_line"])) for c in listed)
    status = row.get("status") or ("ambiguous" if len(callees) > 1 else "unlabelled")
    return Claim(joined(row["caller_path"]), int(row["call_line"]), status, callees)


def score(reference: Reference, claims: list[Claim]) -> Score:
    """Precision per status, ambiguous share and recall of ``claims`` (module rules)."""
    truth: set[Key] = {
        (e.caller_path, e.call_line, e.callee_path, e.callee_start_line) for e in reference.edges
    }
    blind = {(site.caller_path, site.call_line) for site in reference.unresolved}
    scope = set(reference.files)
    result = Score(statuses={}, reference_edges=len(truth))
    definite: set[Key] = set()
    anywhere: set[Key] = set()
    for claim in claims:
        if scope and claim.caller_path not in scope:
            result.out_of_scope += 1
            continue
        keys = {(claim.caller_path, claim.call_line, *callee) for callee in claim.callees}
        hits = keys & truth
        tally = result.statuses.setdefault(claim.status, Tally())
        tally.claims += 1
        tally.candidates += len(keys)
        tally.correct += bool(hits)
        tally.judged += bool(hits) or (claim.caller_path, claim.call_line) not in blind
        anywhere |= hits
        if claim.status != "ambiguous":
            definite |= hits
    result.recalled, result.recalled_any = len(definite), len(anywhere)
    return result


def report(name: str, result: Score) -> dict[str, Any]:
    """The numbers of one score, as printed and as written by ``--json``."""
    total = Tally()
    for tally in result.statuses.values():
        total.add(tally)
    ambiguous = result.statuses.get("ambiguous", Tally())
    return {
        "name": name,
        "reference_edges": result.reference_edges,
        "claims": total.claims,
        "out_of_scope": result.out_of_scope,
        "precision": {
            status: _ratio(t.correct, t.judged) for status, t in sorted(result.statuses.items())
        },
        "strict_precision": {
            status: _ratio(t.correct, t.claims) for status, t in sorted(result.statuses.items())
        },
        "judged": {status: t.judged for status, t in sorted(result.statuses.items())},
        "claims_by_status": {status: t.claims for status, t in sorted(result.statuses.items())},
        "precision_all": _ratio(total.correct, total.judged),
        "ambiguous_share": _ratio(ambiguous.claims, total.claims),
        "ambiguous_mean_candidates": _ratio(ambiguous.candidates, ambiguous.claims),
        "recall": _ratio(result.recalled, result.reference_edges),
        "recall_with_ambiguous": _ratio(result.recalled_any, result.reference_edges),
    }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _print(row: dict[str, Any]) -> None:
    print(
        f"{row['name']}: {row['reference_edges']} reference edges, {row['claims']} claims "
        f"({row['out_of_scope']} out of scope)"
    )
    for status, precision in row["precision"].items():
        print(
            f"  precision {status}: {_percent(precision)} of {row['judged'][status]} judged "
            f"({row['claims_by_status'][status]} claims; strict "
            f"{_percent(row['strict_precision'][status])})"
        )
    print(
        f"  precision all: {_percent(row['precision_all'])}; ambiguous share "
        f"{_percent(row['ambiguous_share'])}, {row['ambiguous_mean_candidates'] or 0} "
        f"candidates each"
    )
    print(
        f"  recall {_percent(row['recall'])}, with ambiguous "
        f"{_percent(row['recall_with_ambiguous'])}"
    )


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", type=Path, help="REFERENCE CANDIDATE ...")
    parser.add_argument("--prefix", default="", help="joined in front of candidate paths")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args(argv)
    if len(args.pairs) % 2:
        parser.error("give a candidate for every reference")
    rows: list[dict[str, Any]] = []
    languages: defaultdict[str, Score] = defaultdict(lambda: Score(statuses={}))
    for reference_path, candidate_path in zip(args.pairs[::2], args.pairs[1::2], strict=True):
        reference = load(reference_path)
        result = score(reference, load_claims(candidate_path, args.prefix))
        rows.append(report(reference.meta.get("corpus", reference_path.name), result))
        languages[reference.meta.get("language", "unknown")].add(result)
    if len(rows) > 1:
        rows += [report(f"all {language}", total) for language, total in languages.items()]
    for row in rows:
        _print(row)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
