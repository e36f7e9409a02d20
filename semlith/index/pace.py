"""How much to embed per call, and how long the rest will take, from a moving rate.

A checkpoint follows every embedding call, so the size of a call decides how much a killed
run loses. A fixed 256 chunks took 50 s or more on a busy machine, and a run killed more
often than that never committed anything (issue 13). `Pace` sizes each call to take about
`target_s` seconds at the rate of the last few calls, starting with a small call so the
rate is known within seconds of the start.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FIRST_BATCH = 16  # chunks in the first call: the rate is known after a few seconds
MIN_BATCH = 8  # below this a call's fixed cost (tokenizer, session run) dominates
MAX_BATCH = 256  # beyond this batching gains nothing (docs/performance.md, "index")
TARGET_SECONDS = 4.0  # wanted time between checkpoints while embedding
DECAY = 0.5  # weight of the calls before the last in the moving rate


@dataclass(slots=True)
class Pace:
    """Batch sizes and a rate that follow the speed of the last few embedding calls."""

    target_s: float = TARGET_SECONDS
    first: int = FIRST_BATCH
    least: int = MIN_BATCH
    most: int = MAX_BATCH
    _chunks: float = field(default=0.0, repr=False)  # decayed sums of the calls so far
    _seconds: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        if not 0 < self.least <= self.first <= self.most or self.target_s <= 0:
            raise ValueError(f"bad pace: least {self.least}, first {self.first}, most "
                             f"{self.most}, target {self.target_s} s")

    @property
    def rate(self) -> float | None:
        """Chunks per second, weighted toward the last calls; None before the first."""
        return self._chunks / self._seconds if self._seconds > 0 else None

    def batch(self) -> int:
        """How many chunks the next call should embed."""
        rate = self.rate
        if rate is None:
            return self.first
        return max(self.least, min(self.most, int(rate * self.target_s)))

    def record(self, chunks: int, seconds: float) -> None:
        """A call embedded `chunks` in `seconds`."""
        if chunks < 0 or seconds < 0:
            raise ValueError(f"a call cannot take {seconds!r} s for {chunks!r} chunks")
        self._chunks = self._chunks * DECAY + chunks
        self._seconds = self._seconds * DECAY + max(seconds, 1e-6)

    def eta(self, chunks_left: float) -> float | None:
        """Seconds to embed `chunks_left` more at the moving rate; None before a call."""
        rate = self.rate
        return max(0.0, chunks_left) / rate if rate else None
