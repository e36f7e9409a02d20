"""The first minute of an index run: paced batches, a moving ETA, and what the user sees.

Runs use a fake clock that an embedder advances by a fixed time per chunk, so a slow or a
fast machine is played deterministically: no sleeps, no timing asserts.
"""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from semlith.base.settings import Settings
from semlith.cli.output import PLAIN_EVERY_S, ProgressView, describe
from semlith.index.indexer import Indexer, Progress
from semlith.index.pace import FIRST_BATCH, MAX_BATCH, MIN_BATCH, Pace
from semlith.store import Store
from tests.conftest import HashEmbedder


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Slow(HashEmbedder):
    """Embeds at `rate` chunks/s of fake time, after `load_s` of loading; logs batches."""

    def __init__(self, clock: Clock, rate: float, load_s: float = 0.0) -> None:
        super().__init__("test-hash")
        clock.now += load_s
        self.clock, self.rate, self.batches = clock, rate, []  # type: list[int]

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.clock.now += len(texts) / self.rate
        self.batches.append(len(texts))
        return super().embed_documents(texts)


def corpus(root: Path, files: int = 30, functions: int = 8) -> Path:
    """Files of `functions` definitions each big enough to be a chunk of its own."""
    root.mkdir(parents=True)
    for n in range(files):
        body = "".join(
            f"def task_{n}_{f}(items):\n    '''Step {f} of job {n}.'''\n"
            + "".join(f"    total_{k} = sum(i * {k} for i in items if i % {f + 2} == {k % 3})\n"
                      for k in range(8))
            + "    return total_0\n\n\n" for f in range(functions))
        (root / f"job_{n:02d}.py").write_text(body)
    return root


def run(root: Path, settings: Settings, rate: float, load_s: float = 0.0
        ) -> tuple[list[tuple[float, Progress]], Slow, list[float]]:
    """Index `root` on a machine embedding `rate` chunks/s: the events (with their fake
    times), the embedder, and the fake times of the checkpoints that committed files."""
    clock = Clock()
    events: list[tuple[float, Progress]] = []
    store = Store.create(root / ".semlith", model="test-hash", dim=64, settings=settings)
    model: list[Slow] = []
    commits: list[float] = []
    checkpoint = store.checkpoint

    def timed_checkpoint(done=()):  # type: ignore[no-untyped-def]
        done = list(done)
        if done:
            commits.append(clock())
        return checkpoint(done)

    store.checkpoint = timed_checkpoint  # type: ignore[method-assign]

    def load() -> Slow:
        model.append(Slow(clock, rate, load_s))
        return model[0]

    def record(p: Progress) -> None:
        if p.phase == "scan":
            clock.now += 0.05  # walking and hashing a file takes time too
        events.append((clock(), p))

    indexer = Indexer(store, root, load, clock=clock, on_progress=record)
    report = indexer.run()
    store.close()
    assert report.complete
    return events, model[0], commits


# -- pacing ----------------------------------------------------------------------------


def test_pace_starts_small_and_follows_the_rate() -> None:
    pace = Pace(target_s=4.0)
    assert pace.batch() == FIRST_BATCH and pace.rate is None and pace.eta(100) is None
    pace.record(16, 8.0)  # 2 chunks/s: 8 per 4 s
    assert pace.batch() == MIN_BATCH
    for _ in range(6):
        pace.record(100, 1.0)  # the machine got fast
    assert pace.batch() == MAX_BATCH
    assert pace.eta(pace.rate * 10) == pytest.approx(10.0)  # type: ignore[operator]


@pytest.mark.parametrize("bad", [dict(least=0), dict(first=4, least=8), dict(target_s=0.0),
                                 dict(first=300, most=256)])
def test_a_bad_pace_is_refused_naming_it(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="bad pace"):
        Pace(**bad)  # type: ignore[arg-type]


def test_a_slow_machine_checkpoints_every_few_seconds(tmp_path: Path,
                                                      settings: Settings) -> None:
    """At 2 chunks/s, 256-chunk batches meant a checkpoint every 128 s (issue 13)."""
    events, model, commits = run(corpus(tmp_path / "p"), settings, rate=2.0)
    assert model.batches[0] == FIRST_BATCH
    assert max(model.batches[1:]) <= 2.0 * 4 + 1
    start = next(t for t, p in events if p.phase == "model")  # embedding starts
    gaps = np.diff([start, *commits])
    assert len(commits) > 20 and gaps.max() <= FIRST_BATCH / 2.0 + 1.0


def test_a_fast_machine_still_embeds_in_big_batches(tmp_path: Path, settings: Settings) -> None:
    _, model, _ = run(corpus(tmp_path / "p", files=60), settings, rate=500.0)
    assert model.batches[0] == FIRST_BATCH and max(model.batches) == MAX_BATCH


def test_the_eta_follows_the_chunks_left(tmp_path: Path, settings: Settings) -> None:
    events, _, _ = run(corpus(tmp_path / "p"), settings, rate=5.0, load_s=20.0)
    end = events[-1][0]
    embed = [(t, p) for t, p in events if p.phase == "embed" and p.eta_s is not None]
    assert embed, "no ETA was ever given"
    # Known within a few seconds of the first embedding, despite 20 s of model loading.
    first_eta_at = embed[0][0]
    model_at = next(t for t, p in events if p.phase == "model")
    assert first_eta_at - model_at <= 20.0 + FIRST_BATCH / 5.0 + 1.0
    for at, p in embed[len(embed) // 4 :]:
        assert p.eta_s == pytest.approx(end - at, rel=0.25, abs=3.0), (at, p)


# -- rendering -------------------------------------------------------------------------


def render(events: list[tuple[float, Progress]], tty: bool, close: bool = True) -> str:
    clock = Clock()
    out = io.StringIO()
    clock.now = events[0][0] if events else 0.0
    view = ProgressView(out, tty=tty, clock=clock, width=lambda: 100)
    for at, p in events:
        clock.now = at
        view(p)
    if close:
        view.close()
    return out.getvalue()


def screen(output: str) -> list[str]:
    """The lines a terminal shows after `output` ("\\r" to column 0, ESC[K clears the rest)."""
    lines, line, col = [], "", 0
    for part in re.split(r"(\r|\n|\x1b\[K)", output):
        if part == "\r":
            col = 0
        elif part == "\n":
            lines.append(line)
            line, col = "", 0
        elif part == "\x1b[K":
            line = line[:col]
        else:
            line = line[:col] + part + line[col + len(part):]
            col += len(part)
    return [*lines, line]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[float, Progress]]:
    """The events of a first index at 5 chunks/s after a 20 s model load."""
    home = tmp_path_factory.mktemp("home")
    root = corpus(tmp_path_factory.mktemp("rec") / "p")
    events, _, _ = run(root, Settings.load(env={"SEMLITH_HOME": str(home)}), rate=5.0,
                       load_s=20.0)
    return events


def test_the_recorded_run_has_every_phase(recorded: list[tuple[float, Progress]]) -> None:
    phases = [p.phase for _, p in recorded]
    assert phases[0] == "scan" and phases[-1] == "done"
    assert "read" in phases and "model" in phases and "embed" in phases
    assert phases.index("read") < phases.index("model") < phases.index("embed")
    assert [p.files_seen for _, p in recorded if p.phase == "scan"] == list(range(1, 31))


def test_piped_output_is_a_line_every_few_seconds(recorded: list[tuple[float, Progress]]
                                                  ) -> None:
    lines = render(recorded, tty=False).splitlines()
    duration = recorded[-1][0] - recorded[0][0]
    phases = len({p.phase for _, p in recorded}) - 1  # "done" prints nothing
    assert len(lines) <= duration / PLAIN_EVERY_S + phases
    assert lines[0].startswith("scanning: 1 file seen")  # at once
    assert any(line.startswith("loading the embedding model") for line in lines)
    assert all("None" not in line and "0/0 files" not in line for line in lines)
    etas = [line for line in lines if "ETA" in line]
    assert etas and all("ETA ?" not in line for line in etas)


def test_a_terminal_shows_one_line_and_clears_it(recorded: list[tuple[float, Progress]]
                                                 ) -> None:
    output = render(recorded, tty=True)
    assert "\n" not in output and "None" not in output
    seen = [int(n) for n in re.findall(r"scanning: (\d+) files seen", output)]
    assert len(seen) >= 5 and seen == sorted(seen) and seen[-1] >= 25  # as it happens
    assert "loading the embedding model" in output and "measuring speed" in output
    assert screen(output) == [""]  # cleared: the summary the CLI prints is the last line


def test_the_first_seconds_of_a_terminal(recorded: list[tuple[float, Progress]]) -> None:
    """Shown at once, not after a minute of `0 chunks 0.0 chunks/s ETA ?`."""
    start = recorded[0][0]
    early = [(t, p) for t, p in recorded if t - start <= 30.0]
    shown = screen(render(early, tty=True, close=False))
    assert len(shown) == 1 and shown[0].startswith("embedding:") and "chunks/s, ETA" in shown[0]


@pytest.mark.parametrize(("event", "line"), [
    (Progress("scan", 0, 3, 0, 0.0, None, "a.py", files_seen=7),
     "scanning: 7 files seen, 3 to index"),
    (Progress("model", 0, 0, 0, 0.0, None), "loading the embedding model"),
    (Progress("read", 3, 9, 0, 0.0, None, "a.py", chunks_total=1),
     "reading: 3/9 files, 1 chunk searchable by keyword"),
    (Progress("read", 9, 9, 0, 0.0, None, "z.py", chunks_total=90),
     "reading: 9/9 files, 90 chunks searchable by keyword"),
    (Progress("embed", 0, 4, 0, 0.0, None, chunks_total=40),
     "embedding: 0/40 chunks, 0/4 files done, measuring speed"),
    (Progress("embed", 2, 4, 16, 3.2, 75.0, chunks_total=40),
     "embedding: 16/40 chunks, 2/4 files done, 3.2 chunks/s, ETA 1m15s"),
    (Progress("embed", 4, 4, 40, 3.2, 0.0, chunks_total=40),
     "embedding: 40/40 chunks, 4/4 files done, 3.2 chunks/s, ETA 0s"),
    (Progress("embed", 4, 9, 40, 0.5, 4000.0, chunks_total=90),
     "embedding: 40/90 chunks, 4/9 files done, 0.5 chunks/s, ETA 1h06m"),
    (Progress("done", 4, 4, 40, 3.2, 0.0), ""),
])
def test_describe(event: Progress, line: str) -> None:
    assert describe(event) == line


def test_the_cli_ends_on_the_summary_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    from click.testing import CliRunner

    from semlith.cli import Env, main

    root = tmp_path / "proj"
    shutil.copytree(Path(__file__).resolve().parents[2] / "fixtures" / "sample", root,
                    ignore=shutil.ignore_patterns(".semlith"))
    env = Env(embedder_factory=lambda name: HashEmbedder(name))
    result = CliRunner().invoke(main, ["index", str(root)], obj=env)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    summary = next(i for i, line in enumerate(lines) if line.startswith("9 indexed, 0 unchanged"))
    assert all(line.startswith("note: ") for line in lines[summary + 1:]), lines  # notes only
    assert "None" not in result.output
    assert lines[0].startswith("scanning: 1 file seen"), lines  # piped: the first at once


def test_a_piped_run_prints_its_first_line_at_once(recorded: list[tuple[float, Progress]]
                                                   ) -> None:
    start = recorded[0][0]
    early = [(t, p) for t, p in recorded if t - start < PLAIN_EVERY_S and p.phase == "scan"]
    assert early and render(early, tty=False).splitlines() == [describe(recorded[0][1])]


def test_no_model_phase_when_the_model_is_already_loaded(tmp_path: Path) -> None:
    """The daemon holds its model: its runs never say "loading the embedding model"."""
    from semlith.local import Engine, LocalLibrary

    config = Settings.load(env={"SEMLITH_HOME": str(tmp_path / "home")})
    engine = Engine(config, lambda name: HashEmbedder(name))
    library = LocalLibrary(config, engine=engine)
    root = corpus(tmp_path / "p", files=2, functions=2)
    first: list[str] = []
    library.index([str(root)], on_progress=lambda p: first.append(p.phase))
    (root / "later.py").write_text("def later():\n    return 'a new file to embed'\n")
    again: list[str] = []
    library.index([str(root)], on_progress=lambda p: again.append(p.phase))
    engine.close()
    assert "embed" in first and "model" not in first  # the new store's dimension loaded it
    assert "embed" in again and "model" not in again, again
