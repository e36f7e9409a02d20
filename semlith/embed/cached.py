"""`CachingEmbedder`: a text model that asks the machine-wide vector cache first.

The seam is the Engine's factory of document models: `with_vector_cache(factory,
settings)` wraps what it loads, so the daemon, every CLI run and every store look in one
cache (semlith/store/vector_cache.py) and embed only what none of them has seen. Query
vectors are not cached here: EmbedderPool keeps its own LRU of them.

An entry is keyed by the model's identity and the exact text the model embeds (its
document prefix included). The identity is what decides the vectors:

- a recipe model (semlith/embed/recipes.py): its name, a hash of its `build.json` (recipe
  version, source package and weights hash, the sha256 of every built file), its
  `Runtime` (prefixes, token limit) and the onnxruntime and tokenizers versions, so a
  rebuild, a new recipe or an upgraded runtime starts a fresh set of entries;
- a fastembed model: its name, the Hugging Face revision it was downloaded at and the
  fastembed and onnxruntime versions; one whose revision cannot be read is not cached;
- anything else: its `identity` attribute when it has one, else its name (test models).

A cached vector is the very vector the model gave: recipe and fastembed models embed one
text per ONNX call (`BATCH_SIZE = 1`), so a vector does not depend on its batch-mates,
and the thread count is left out of the identity because 1 and 2 intra-op threads gave
bit-identical MiniLM vectors (40 chunks, measured), so the daemon and a CLI run share.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np

from semlith.base.settings import Settings
from semlith.embed.cache import MANIFEST
from semlith.embed.onnx_model import OnnxEmbedder
from semlith.embed.recipes import RECIPES
from semlith.embed.text import Embedder, FastEmbedder
from semlith.store.vector_cache import FOLDER, VectorCache, entry_key

log = logging.getLogger("semlith.vector_cache")


@dataclass(frozen=True, slots=True)
class Embedded:
    """One batch's vectors, and how many of its rows the model did not have to embed."""

    vectors: np.ndarray
    cached: int  # found in the cache, or a repeat of a text earlier in the batch


@dataclass(frozen=True, slots=True)
class CacheCounts:
    """Rows served without the model (`cached`) and rows it embedded, since loading."""

    cached: int
    embedded: int


class CachingEmbedder:
    """An Embedder over `inner` that embeds only the texts `cache` does not hold.

    One lookup per batch; the misses (each distinct text once) go to `inner` in one call
    and are stored. Thread-safe: the daemon's index runs share one instance per model.
    """

    def __init__(self, inner: Embedder, cache: VectorCache, identity: str) -> None:
        self.inner = inner
        self.cache = cache
        self.identity = identity
        self.name = inner.name
        self.dim = inner.dim
        self._prefix = str(getattr(inner, "document_prefix", ""))
        self._lock = threading.Lock()
        self._cached = 0
        self._embedded = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_counted(texts).vectors

    def embed_counted(self, texts: Sequence[str]) -> Embedded:
        """Unit vectors for `texts` in input order, and how many came without the model."""
        out = np.empty((len(texts), self.dim), np.float32)
        if not texts:
            return Embedded(out, 0)
        keys = [entry_key(self.identity, self._prefix + text) for text in texts]
        missing: dict[bytes, list[int]] = {}
        for i, vector in enumerate(self.cache.get(keys, self.dim)):
            if vector is None:
                missing.setdefault(keys[i], []).append(i)
            else:
                out[i] = vector
        if missing:
            firsts = [rows[0] for rows in missing.values()]
            fresh = np.asarray(self.inner.embed_documents([texts[i] for i in firsts]),
                               np.float32).reshape(len(firsts), self.dim)
            for vector, rows in zip(fresh, missing.values(), strict=True):
                out[rows] = vector
            self.cache.put(self.identity, list(missing), fresh)
        with self._lock:
            self._cached += len(texts) - len(missing)
            self._embedded += len(missing)
        return Embedded(out, len(texts) - len(missing))

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    @property
    def counts(self) -> CacheCounts:
        with self._lock:
            return CacheCounts(self._cached, self._embedded)


class CachedModels:
    """A model factory whose models ask one VectorCache first (`cache`, for `stats`)."""

    def __init__(self, factory: Callable[[str], Embedder], cache: VectorCache,
                 models_dir: Path) -> None:
        self.factory = factory
        self.cache = cache
        self.models_dir = models_dir

    def __call__(self, name: str) -> Embedder:
        model = self.factory(name)
        identity = model_identity(model, self.models_dir)
        if identity is None:
            log.info("model %s: no identity to key cached vectors by; not cached", name)
            return model
        return CachingEmbedder(model, self.cache, identity)


def with_vector_cache(factory: Callable[[str], Embedder], settings: Settings
                      ) -> Callable[[str], Embedder]:
    """`factory` as CachedModels over the cache in `SEMLITH_HOME/vectors/`.

    `factory` itself when the cache is off (`SEMLITH_VECTOR_CACHE_MB=0` or
    `SEMLITH_PERF=off`). The cache file is opened on the first lookup, so a run that
    embeds nothing never touches it.
    """
    if not settings.perf or settings.vector_cache_mb <= 0:
        return factory
    cache = VectorCache(settings.home / FOLDER, settings.vector_cache_mb << 20)
    return CachedModels(factory, cache, settings.models_dir)


def model_identity(model: Embedder, models_dir: Path) -> str | None:
    """What decides `model`'s vectors, as one string; None when it cannot be known."""
    given = getattr(model, "identity", None)
    if isinstance(given, str) and given:
        return given
    if isinstance(model, OnnxEmbedder) and model.name in RECIPES:
        return recipe_identity(model.name, models_dir / model.name)
    if isinstance(model, FastEmbedder):
        return fastembed_identity(model.name, models_dir)
    return model.name


def recipe_identity(name: str, folder: Path) -> str | None:
    """`name@hash` of recipe `name`'s verified build in `folder` and the runtime it runs on.

    load_embedder has verified the build's files against `build.json` just before; a
    build that another semlith version replaces in the milliseconds between its load and
    this read would be labelled with the new build's identity (not guarded: it takes two
    versions of different recipes rebuilding one models folder at once).
    """
    try:
        built = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        material = {key: built[key] for key in ("recipe", "recipe_version", "source", "files")}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    material["runtime"] = dataclasses.asdict(RECIPES[name].runtime)
    material["versions"] = _versions("onnxruntime", "tokenizers")
    return f"{name}@{_short_hash(material)}"


def fastembed_identity(name: str, models_dir: Path) -> str | None:
    """`name@hash` of the Hugging Face revision fastembed loaded `name` from, or None."""
    from fastembed import TextEmbedding

    sources = [m.get("sources", {}).get("hf") for m in TextEmbedding.list_supported_models()
               if m["model"] == name]
    if not sources or not sources[0]:
        return None
    # The hub's cache layout: refs/main holds the commit the snapshot was taken at.
    ref = models_dir / ("models--" + str(sources[0]).replace("/", "--")) / "refs" / "main"
    try:
        revision = ref.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not revision:
        return None
    material = {"revision": revision, "versions": _versions("fastembed", "onnxruntime")}
    return f"{name}@{_short_hash(material)}"


def _versions(*packages: str) -> dict[str, str]:
    out = {}
    for package in packages:
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = "absent"
    return out


def _short_hash(material: object) -> str:
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:16]
