"""Images: index rate, warm image query p50, RSS after an image query, image index size.

The issue's reference figures (issue #14): 120 images indexed in 10.0 s including the
model load, a warm image query 9.1 ms p50, 191 MB resident after an image query, a
600 KB image index. Weights: `SEMLITH_CLIP_WEIGHTS` when set (trained weights), else
`SEMLITH_BENCH_CLIP`: `tiny` (default; the tests' 3.6 M parameter model) or an open_clip
model name such as `ViT-B-32-quickgelu` (seeded random weights: the real model's cost,
not its quality). Each run says which weights it used. The images are smooth random
pictures, 640x480 PNG, made with a fixed seed.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from harness import Context, Metrics, Result, isolated, percentiles, rss_mb, scenario

QUERIES = ["architecture diagram of the ingest pipeline", "a screenshot of an error",
           "a photo of a whiteboard", "red and blue shapes", "the login page",
           "a chart of memory use", "a dark terminal window", "a logo on white"]


def _images(root: Path, count: int) -> None:
    from PIL import Image

    rng = np.random.default_rng(0)
    root.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        small = rng.integers(0, 256, (6, 8, 3), dtype=np.uint8)
        picture = Image.fromarray(small).resize((640, 480), Image.Resampling.BICUBIC)
        picture.save(root / f"shot-{n:03}.png")


def _weights(workdir: Path) -> tuple[Path, str]:
    from semlith.embed.clip import save_seeded_model

    given = os.environ.get("SEMLITH_CLIP_WEIGHTS", "").strip()
    if given:
        return Path(given), f"given: {Path(given).name}"
    kind = os.environ.get("SEMLITH_BENCH_CLIP", "tiny").strip() or "tiny"
    folder = workdir / f"weights-{kind}"
    if kind == "tiny":
        return save_seeded_model(folder), "tiny (3.6 M params, seeded random)"
    return save_seeded_model(folder, kind), f"{kind} (seeded random)"


def _library(workdir: str, weights: str) -> Any:
    os.environ["SEMLITH_CLIP_WEIGHTS"] = weights
    os.environ["SEMLITH_HOME"] = str(Path(workdir) / "home")
    from semlith.base.settings import Settings
    from semlith.local import LocalLibrary

    return LocalLibrary(Settings.load())


def _index(workdir: str, count: int, weights: str) -> Metrics:
    """In a fresh process: make the store, then index `count` images (torch import and
    model load included, as in the reference figure)."""
    library = _library(workdir, weights)
    root = Path(workdir) / "tree"
    root.mkdir()
    library.index([str(root)])  # the store, and its text model built once (not timed)
    _images(root, count)
    start = time.perf_counter()
    report = library.index([str(root)])
    index_s = time.perf_counter() - start
    space = root / ".semlith" / "spaces" / "image"
    size = sum(p.stat().st_size for p in space.rglob("*") if p.is_file())
    return {"images": report.indexed, "index_s": round(index_s, 2),
            "images_per_s": round(report.indexed / index_s, 1),
            "image_index_kb": round(size / 1024)}


def _query(workdir: str, weights: str) -> Metrics:
    """In a fresh process: warm text->image and image->image p50, then RSS."""
    library = _library(workdir, weights)
    library.search(QUERIES[0], k=10)  # loads the image model
    samples = []
    for query in QUERIES * 3:
        start = time.perf_counter()
        library.search(query, k=10)
        samples.append(time.perf_counter() - start)
    text_query = percentiles(samples)
    probe = str(Path(workdir) / "tree" / "shot-007.png")
    library.search("", image=probe, k=10)
    samples = []
    for _ in range(24):
        start = time.perf_counter()
        library.search("", image=probe, k=10)
        samples.append(time.perf_counter() - start)
    image_query = percentiles(samples)
    return {"text_to_image_p50_ms": round(text_query["p50_ms"], 1),
            "image_to_image_p50_ms": round(image_query["p50_ms"], 1),
            "rss_mb_after_query": round(rss_mb())}


@scenario("images", sizes=[120], fast_sizes=[20], needs_model=True)
def images_scenario(ctx: Context, sizes: list[int]) -> Result:
    """Index N images (model load included), warm text->image and image->image p50, RSS."""
    out: Result = {}
    with tempfile.TemporaryDirectory(prefix="semlith-images-", dir=ctx.workdir) as tmp:
        weights, label = _weights(Path(tmp))
        for size in sizes:
            run = Path(tmp) / f"run-{size}"
            run.mkdir()
            metrics: Metrics = {"weights": label,
                                "load_avg_1m_before": round(os.getloadavg()[0], 2)}
            metrics.update(isolated(_index, str(run), size, str(weights)))
            metrics.update(isolated(_query, str(run), str(weights)))
            ctx.log(f"images: {size} {metrics}")
            out[size] = metrics
    return out
