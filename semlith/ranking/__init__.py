"""Ranking: how a query's candidate lists become ordered hits — one module per signal.

`pipeline.rank` runs fusion (fusion.py), then each signal of `pipeline.SIGNALS` (a
module with `apply(scores, ctx)`), then the final order (select.py). Every signal's
weight lives in `Weights` (semlith/base/weights.py, beside the Settings that hold it) with a
kill switch (`SEMLITH_RANKING=name=0`), and its measured effect is in docs/performance.md
("Ranking").
"""
