"""Files an issue names: a traceback's frames and the paths its text writes.

An issue pasted whole often says where it broke: `File ".../site-packages/_pytest/
unittest.py", line 145, in _inject_setup_class_fixture`, or "in `requests/models.py`".
The searcher finds which indexed files those are (search/symbols.py, `issue_files`: a
named path is a file when at least its folder and its name end the file's path) and
puts a frame's own definition first in the symbol list; here every candidate chunk of a
named file gains `named` times the best candidate's score, before the file names, the
priors and the file evidence. The candidates stay what the lists found: a named file
none of them is in gains nothing, so a traceback through ten files reorders, it never
fills the head. Measured on benchmarks/issues.py (docs/performance.md, "Issue text ->
files"): 0.5 lifted the tune half's hit@1 48.4 -> 51.6 % and sphinx's hit@10 (never
tuned on) 70.7 -> 73.2 %; 1.0 lost a first place the owner's definition held.
"""

from __future__ import annotations

from semlith.ranking.context import Context, Scores


def apply(scores: Scores, ctx: Context) -> Scores:
    weight = ctx.weights.named
    if not weight or not ctx.lists.named_files or not scores:
        return scores
    unit = weight * max(scores.values())
    out = dict(scores)
    for cid in scores:
        record = ctx.records.get(cid)
        if record is not None and record.path in ctx.lists.named_files:
            out[cid] += unit
    return out
