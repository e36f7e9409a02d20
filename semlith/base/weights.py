"""Every ranking knob, with its kill switch: `Weights`, read from SEMLITH_RANKING.

`SEMLITH_RANKING="priors=0,files=0.5"` overrides single weights; `0` or `off` turns a
signal off. Defaults are the best measured on the tune half of the development set
and confirmed on the other half (docs/performance.md, "Ranking"); change one only with
both halves' before and after from benchmarks/retrieval.py.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True, slots=True)
class Weights:
    dense: float = 1.0  # the embedding list
    keyword: float = 1.0  # the FTS5 bm25 list
    symbol: float = 2.0  # the definitions an identifier in the query names
    symbol_k: float = 10.0  # the symbol list's RRF constant: smaller, its head dominates
    # The symbol list's definitions whose name matches the query's only in another case
    # (`latex` for "LaTeX"): weighed like the dense and keyword lists, at rrf_k.
    symbol_case: float = 1.0
    rrf_k: float = 60.0  # the other lists' RRF constant
    path: float = 2.0  # file-name words of the query: a multiple of the best score (paths.py)
    per_file: float = 1.0  # hits per file before the other files' (0: no limit)
    scores: float = 0.0  # score-aware fusion: normalised cosine/bm25 added beside ranks
    ident_dense: float = 1.0  # the dense weight times this for identifier-only queries
    ident_keyword: float = 1.0  # the keyword weight times this for identifier-only queries
    phrase_dense: float = 1.0  # the dense weight times this for plain-word queries
    priors: float = 1.0  # file-role priors: an exponent on their factors (priors.py)
    files: float = 0.2  # file-level evidence: a multiple of the best score (files.py)
    named: float = 0.5  # files an issue names (frames, paths): a multiple of the best (named.py)
    image: float = 1.0  # the image space's list (CLIP; docs/images.md): not tuned yet
    whole: float = 1.0  # a hit shows its whole definition where it fits (search/whole.py)

    @classmethod
    def parse(cls, text: str) -> Weights:
        """`name=value,...` over the defaults; ValueError naming a bad part."""
        known = {f.name for f in fields(cls)}
        changes: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, sep, raw = part.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in known:
                raise ValueError(f"SEMLITH_RANKING: {part!r} is not name=value with a name "
                                 f"from {', '.join(sorted(known))}")
            value = raw.strip().lower()
            try:
                changes[name] = 0.0 if value in {"off", "no", "false"} else float(value)
            except ValueError:
                raise ValueError(f"SEMLITH_RANKING: {part!r} needs a number or off") from None
            if changes[name] < 0:
                raise ValueError(f"SEMLITH_RANKING: {part!r} must not be negative")
        return replace(cls(), **changes)

    def describe(self) -> str:
        """The weights that differ from the defaults, as SEMLITH_RANKING would say them."""
        default = Weights()
        return ",".join(f"{f.name}={getattr(self, f.name):g}" for f in fields(self)
                        if getattr(self, f.name) != getattr(default, f.name))
