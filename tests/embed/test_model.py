"""The real default model: offline loading, errors that say what to do, retrieval quality."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from semlith.base.settings import Settings
from semlith.embed.text import DEFAULT_MODEL, FastEmbedder
from semlith.errors import ModelError
from semlith.local import LocalLibrary
from semlith.types import Scope

pytestmark = pytest.mark.model
SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample"

QUESTIONS = [
    ("how does retry backoff work", "net/retry.py"),
    ("verify the signature and expiry of a session token", "auth/tokens.go"),
    ("hash a password with a salt", "auth/password.rs"),
    ("evict the least recently used cache entry", "storage/cache.ts"),
    ("register a handler for a url pattern with parameters", "web/router.js"),
    ("database tables for users and sessions", "storage/migrations.sql"),
    # Docs rank below code unless the question asks for them (docs/ranking.md, priors).
    ("what do the docs say about how often the database is backed up",
     "docs/deployment.md"),
    ("reuse open sockets between http requests", "net/http_client.py"),
]


@pytest.fixture(scope="module")
def model() -> FastEmbedder:
    return FastEmbedder()


def test_default_model_loads_offline(model: FastEmbedder) -> None:
    assert model.name == DEFAULT_MODEL and model.dim == 384
    docs = model.embed_documents(["def retry(): exponential backoff", "the cat sat on a mat"])
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    query = model.embed_query("retry with backoff")
    assert float(docs[0] @ query) > float(docs[1] @ query) + 0.2
    FastEmbedder()  # registering the custom model a second time is harmless


def test_length_sorted_batches_keep_input_order(model: FastEmbedder) -> None:
    texts = ["short", "a much longer text about sockets " * 20, "medium length text here"]
    together = model.embed_documents(texts)
    alone = np.vstack([model.embed_documents([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_missing_models_fail_fast_saying_what_to_do(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(ModelError, match=r"not downloaded.*semlith models --download"):
        FastEmbedder("BAAI/bge-small-en-v1.5", cache_dir=tmp_path)
    assert time.monotonic() - started < 20  # not ~40 s of hub retries
    with pytest.raises(ModelError, match="unknown model 'no/such-model'"):
        FastEmbedder("no/such-model", cache_dir=tmp_path)


@pytest.fixture(scope="module")
def sample_store(tmp_path_factory: pytest.TempPathFactory, models_dir: Path
                 ) -> Iterator[tuple[LocalLibrary, Path]]:
    root = tmp_path_factory.mktemp("sample") / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    library = LocalLibrary(Settings.load(env={"SEMLITH_HOME": str(root.parent / "home"),
                                              "SEMLITH_MODELS": str(models_dir)}))
    library.index([str(root)])
    yield library, root / ".semlith"
    library.close()


@pytest.mark.parametrize(("query", "expected"), QUESTIONS)
def test_plain_english_questions_find_the_right_file(
        sample_store: tuple[LocalLibrary, Path], query: str, expected: str) -> None:
    library, folder = sample_store
    hits = library.search(query, k=3, scope=Scope((str(folder),))).hits
    assert hits[0].path == expected, [h.locator for h in hits]


def _generated_corpus(root: Path, files: int = 36) -> None:
    topics = ["parse configuration files", "render html templates", "schedule cron jobs",
              "compress log archives", "resize uploaded images", "send email receipts"]
    for n in range(files):
        lines = []
        for f in range(30):
            topic = topics[(n + f) % len(topics)]
            lines += [f"def task_{n}_{f}(items):",
                      f'    """Helper {f} of module {n}: {topic} for batch jobs."""',
                      "    results = []",
                      "    for item in items:",
                      f"        results.append(('{topic}', item, {n * f}))",
                      "    return results", ""]
        (root / f"module_{n:02d}.py").write_text("\n".join(lines))


@pytest.mark.slow
def test_cli_index_killed_mid_run_resumes(tmp_path: Path) -> None:
    root = tmp_path / "big"
    root.mkdir()
    _generated_corpus(root)
    semlith = [sys.executable, "-m", "semlith"]
    env = {**os.environ, "SEMLITH_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen([*semlith, "index", str(root), "--quiet"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    db = root / ".semlith" / "store.db"
    deadline = time.monotonic() + 240
    committed = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists():
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                try:
                    committed = conn.execute("SELECT COUNT(*) FROM files WHERE hash != ''"
                                             ).fetchone()[0]
                except sqlite3.OperationalError:
                    committed = 0
            if committed:
                break
        time.sleep(0.2)
    assert committed, "the first checkpoint never came"
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    again = subprocess.run([*semlith, "index", str(root), "--quiet"], env=env,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "resumed an interrupted run" in again.stdout
    done = int(again.stdout.split("(")[-1].split(" file")[0])
    assert done >= committed
    stats = subprocess.run([*semlith, "stats", "--json", "--store", str(root / ".semlith")],
                           env=env, capture_output=True, text=True, check=True)
    assert '"pending_files": 0' in stats.stdout and '"files": 36' in stats.stdout


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("0", "0")])
def test_onnxruntime_telemetry_is_off_before_onnxruntime_loads(
        given: str | None, expected: str) -> None:
    """onnxruntime 1.32 sends telemetry every few seconds (a wake-up of the idle daemon,
    and a report on its user; issue #25) unless its variable is set before its first
    import; a user's own setting stays."""
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    if given is not None:
        env["ORT_DISABLE_TELEMETRY"] = given
    code = ("import sys; from semlith.embed import onnx_model; onnx_model.session_options(1); "
            "assert 'onnxruntime' in sys.modules; import os; "
            "print(os.environ['ORT_DISABLE_TELEMETRY'])")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected
