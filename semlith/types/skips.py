"""Why an index run skipped what it skipped, counted: the summary line says "7 skipped
(4 hidden, 2 secret, 1 too large)" rather than a bare number a person must look into."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

SHOWN = 4  # reasons named in the summary; `files --skipped` lists every file and reason


def count_skips(report: Any, reasons: Iterable[str]) -> None:
    """Add one skipped file per reason to an `IndexReport`."""
    for reason in reasons:
        report.skipped += 1
        report.skip_reasons[reason] = report.skip_reasons.get(reason, 0) + 1


def why_skipped(reasons: dict[str, int]) -> str:
    """' (4 hidden, 2 secret, 1 too large)', the commonest first; '' without reasons."""
    ranked = sorted(reasons.items(), key=lambda item: (-item[1], item[0]))
    parts = [f"{n} {why}" for why, n in ranked[:SHOWN]]
    rest = sum(n for _, n in ranked[SHOWN:])
    if rest:
        parts.append(f"{rest} for {len(ranked) - SHOWN} other reasons")
    return f" ({', '.join(parts)})" if parts else ""
