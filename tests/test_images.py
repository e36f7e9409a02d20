"""Images: reading them safely, the CLIP embedder (a tiny seeded open_clip model),
near-duplicate retrieval, and fetching the weights."""

from __future__ import annotations

import base64
import hashlib
import http.server
import importlib.util
import io
import os
import signal
import sqlite3
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from starlette.testclient import TestClient

from semlith.base.settings import Settings
from semlith.embed import clip
from semlith.embed.clip import ClipEmbedder
from semlith.errors import BadTarget, ModelError
from semlith.index.indexer import Indexer
from semlith.ingest.extract import Unreadable
from semlith.ingest.images import describe, is_image, preview, read_image
from semlith.local import Engine, LocalLibrary
from semlith.store import ChunkRow, Store
from semlith.store.rows import SpaceRecord
from semlith.store.vectors import LocalSpace
from semlith.types import IndexReport, Progress
from tests.cli_util import run
from tests.conftest import HashEmbedder, add_file, unit_vectors
from tests.server_util import ACCEPT, app_over_fleet, open_session


@pytest.fixture(scope="session")
def tiny_weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny open_clip model with seeded weights, as a `local-dir:` folder (what
    SEMLITH_CLIP_WEIGHTS takes; it reaches subprocesses too). Without the images extra
    (the test extra leaves torch out) the tests that need it skip, or fail under
    SEMLITH_REQUIRE_IMAGES=1 (CI)."""
    if not all(importlib.util.find_spec(name) for name in ("torch", "open_clip")):
        why = "the images extra is not installed (pip install -e '.[images]', docs/images.md)"
        if os.environ.get("SEMLITH_REQUIRE_IMAGES") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return clip.save_seeded_model(tmp_path_factory.mktemp("clip") / "tiny")


@pytest.fixture(scope="session")
def tiny(tiny_weights: Path) -> ClipEmbedder:
    return ClipEmbedder(tiny_weights)


def encode(image: Image.Image, fmt: str = "PNG", **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def photo(seed: int, size: tuple[int, int] = (320, 240)) -> Image.Image:
    """A smooth random picture (blobs of colour): what downscaling and JPEG preserve."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (6, 8, 3), dtype=np.uint8)
    return Image.fromarray(small).resize(size, Image.Resampling.BICUBIC)


def distractors() -> list[Image.Image]:
    rng = np.random.default_rng(99)
    noise = [Image.fromarray(rng.integers(0, 256, (240, 320, 3), dtype=np.uint8))
             for _ in range(8)]
    ramp = np.linspace(0, 255, 320, dtype=np.float32)
    gradients = [Image.fromarray(np.stack([np.tile(ramp * a % 256, (240, 1)),
                                           np.tile(ramp[::-1] * b % 256, (240, 1)),
                                           np.full((240, 320), c, np.float32)], -1)
                                 .astype(np.uint8))
                 for a, b, c in [(1, 1, 0), (2, 1, 90), (1, 3, 200), (0.5, 1, 30)]]
    return noise + gradients + [photo(100 + i) for i in range(8)]


# -- reading images -------------------------------------------------------------------


def test_image_extensions_and_svg_stays_text() -> None:
    for name in ("a.png", "b.JPG", "c.jpeg", "d.gif", "e.webp", "f.bmp", "g.tif", "h.tiff"):
        assert is_image(name)
    assert not is_image("diagram.svg")
    assert not is_image("notes.md")


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "GIF", "WEBP", "BMP", "TIFF"])
def test_reads_every_format(fmt: str) -> None:
    image = read_image(encode(photo(1), fmt))
    assert (image.width, image.height) == (320, 240)
    assert image.format == fmt


def test_gif_first_frame_and_exif_orientation() -> None:
    frames = [Image.new("RGB", (40, 30), colour) for colour in ("red", "blue", "green")]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:])
    first = read_image(out.getvalue()).image.convert("RGB")
    assert first.getpixel((5, 5))[0] > 200  # red, the first frame

    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees on display
    upright = read_image(encode(Image.new("RGB", (100, 60)), "JPEG", exif=exif))
    assert (upright.width, upright.height) == (60, 100)


def test_description_for_the_keyword_index() -> None:
    image = read_image(encode(photo(1), "PNG"))
    assert describe("docs/ingest-pipeline_diagram.png", image) == \
        "image ingest pipeline diagram 320x240 png"


def _png_header(width: int, height: int) -> bytes:
    """A PNG that claims `width` x `height` but holds (almost) no pixel data."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + \
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + \
        chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")


@pytest.mark.parametrize(("data", "reason"), [
    (b"this is not an image at all", "not a readable image"),
    (encode(photo(2), "JPEG")[:600], "image:"),  # truncated JPEG
    (_png_header(8000, 6000), "image too large (8000x6000 pixels; cap 40 MP)"),  # 48 MP
    (_png_header(20000, 20000), "image too large"),  # past Pillow's own bomb error
    (_png_header(2**31 - 1, 2**31 - 1), "image"),  # absurd dimension claims
    (_png_header(300, 200), "image:"),  # a header with too little data behind it
])
def test_hostile_images_are_one_reason_each(data: bytes, reason: str) -> None:
    with pytest.raises(Unreadable) as caught:
        read_image(data)
    assert reason in str(caught.value)


def test_preview_is_bounded() -> None:
    rng = np.random.default_rng(3)
    noisy = Image.fromarray(rng.integers(0, 256, (1500, 2000, 3), dtype=np.uint8))
    data, mime = preview(encode(noisy, "PNG"))
    assert mime == "image/jpeg" and len(data) <= 256 << 10  # noise never fits as PNG
    assert max(Image.open(io.BytesIO(data)).size) <= 512
    data, mime = preview(encode(Image.new("RGB", (1000, 800), "white"), "PNG"))
    assert mime == "image/png" and Image.open(io.BytesIO(data)).size == (512, 410)


# -- the embedder ---------------------------------------------------------------------


def test_embedder_gives_unit_rows(tiny: ClipEmbedder) -> None:
    rows = tiny.embed_images([photo(1), photo(2).convert("L"), photo(3).convert("RGBA")])
    assert rows.shape == (3, 64) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1, atol=1e-5)
    query = tiny.embed_text("architecture diagram of the ingest pipeline")
    assert query.shape == (64,) and abs(float(np.linalg.norm(query)) - 1) < 1e-5
    assert tiny.dim == 64 and len(tiny.sha256) == 64


def test_preprocessing_matches_open_clip(tiny: ClipEmbedder) -> None:
    open_clip = clip.import_open_clip()
    transform = open_clip.image_transform(224, is_train=False)
    for image in (photo(1, (225, 300)), photo(2, (1000, 3)), photo(3).convert("P")):
        ours = clip.preprocess(image, 224, clip.OPENAI_MEAN, clip.OPENAI_STD)
        assert np.array_equal(ours, transform(image).numpy())


def test_near_duplicates_rank_first(tiny: ClipEmbedder) -> None:
    originals = [photo(1), photo(2), photo(3)]
    gallery = originals + distractors()
    vectors = tiny.embed_images(gallery)
    for n, original in enumerate(originals):
        variants = [
            original,
            original.resize((160, 120), Image.Resampling.LANCZOS),  # resized
            Image.open(io.BytesIO(encode(original, "JPEG", quality=60))),  # recompressed
            original.crop((4, 3, 316, 237)),  # cropped by a few pixels
        ]
        for variant in variants:
            scores = vectors @ tiny.embed_images([variant])[0]
            assert int(np.argmax(scores)) == n


def test_model_load_needs_weights(tmp_path: Path, tiny_weights: Path) -> None:
    with pytest.raises(ModelError) as caught:
        ClipEmbedder.load(tmp_path)
    assert "SEMLITH_CLIP_WEIGHTS" in str(caught.value)
    assert f"semlith models --download {clip.CLIP_MODEL}" in str(caught.value)
    assert clip.weights_state(tmp_path) == "download"
    with pytest.raises(ModelError, match="does not exist"):
        clip.weights_path(tmp_path, tmp_path / "nope")
    assert ClipEmbedder.load(tmp_path, tiny_weights).sha256 == ClipEmbedder(tiny_weights).sha256


def test_missing_extra_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clip, "images_extra_installed", lambda: False)
    assert clip.weights_state(tmp_path) == "no extra"
    with pytest.raises(ModelError, match="images extra not installed"):
        ClipEmbedder.load(tmp_path)


@pytest.mark.skipif(not os.environ.get("SEMLITH_CLIP_WEIGHTS"),
                    reason="text->image quality needs trained weights (SEMLITH_CLIP_WEIGHTS)")
def test_text_finds_the_matching_picture(tmp_path: Path) -> None:
    model = ClipEmbedder.load(tmp_path, Settings.load().clip_weights)
    red = Image.new("RGB", (224, 224), (220, 20, 20))
    stripes = Image.fromarray(np.tile(np.repeat([0, 255], 16), (224, 7))
                              .astype(np.uint8)[:, :224])
    rows = model.embed_images([red, stripes])
    assert int(np.argmax(rows @ model.embed_text("a plain red square"))) == 0
    assert int(np.argmax(rows @ model.embed_text("black and white vertical stripes"))) == 1


# -- fetching the weights -------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, bytes]]:
    """A file served over HTTP from 127.0.0.1 (the download test has no internet)."""
    body = os.urandom(300_000)
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "ViT-B-32.pt").write_bytes(body)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(tmp_path / "www"), **kwargs)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/ViT-B-32.pt", body
    finally:
        server.shutdown()
        server.server_close()


def test_download_is_hash_checked(tmp_path: Path, served: tuple[str, bytes]) -> None:
    url, body = served
    models = tmp_path / "models"
    with pytest.raises(ModelError, match="expected"):
        clip.download_weights(models, url=url, sha256="0" * 64)
    assert not (models / clip.CLIP_MODEL).exists()  # nothing left behind
    path = clip.download_weights(models, url=url, sha256=hashlib.sha256(body).hexdigest())
    assert path.read_bytes() == body
    assert sorted(p.name for p in path.parent.iterdir()) == [clip.WEIGHTS_FILE]
    assert clip.weights_path(models) == path
    with pytest.raises(ModelError, match="could not download"):
        clip.download_weights(models, url=url + ".missing", sha256="0" * 64)
    assert path.read_bytes() == body  # a failed download keeps the good file


# -- the image space of a store -------------------------------------------------------


def test_store_keeps_a_space_per_model(tmp_path: Path, settings: Settings) -> None:
    store = Store.create(tmp_path / "s", model="text-model", dim=32, settings=settings)
    assert set(store.spaces) == {"text"}
    assert store.space("text") == SpaceRecord("text", "text-model", 32, "")
    image = store.ensure_space("image", model="clip", dim=64, weights_sha256="a" * 64)
    assert store.ensure_space("image", model="clip", dim=64, weights_sha256="a" * 64) is image
    text_ids = add_file(store, "a.py", unit_vectors(3, 32))
    with store.catalog.transaction() as db:
        file_id = store.catalog.put_file(db, "shot.png", size=1, mtime_ns=1)
        (image_id,) = store.catalog.replace_chunks(
            db, file_id, [ChunkRow(1, 1, "image shot 10x10 png", "image", space="image")])
    picture = unit_vectors(1, 64, seed=5)
    store.add_vectors([image_id], picture, space="image")
    store.checkpoint([(file_id, "h2")])
    store.close()
    assert (tmp_path / "s" / "spaces" / "image" / "exact.f32").exists()
    assert list((tmp_path / "s" / "spaces" / "image" / "shards").iterdir())

    again = Store.open(tmp_path / "s", settings=settings, writable=True)
    assert set(again.spaces) == {"text", "image"}
    assert again.dense_search(picture[0], 5, space="image") == [(image_id, pytest.approx(1.0))]
    assert {i for i, _ in again.dense_search(unit_vectors(1, 32)[0], 10)} == set(text_ids)
    assert again.stats()["spaces"]["image"] == {"model": "clip", "dim": 64, "vectors": 1}
    with pytest.raises(ModelError, match="built with clip"):
        again.ensure_space("image", model="clip", dim=64, weights_sha256="b" * 64)
    with again.catalog.transaction() as db:  # deleting the file trashes its image vector
        again.catalog.delete_files(db, ["shot.png"])
    again.checkpoint()
    assert again.dense_search(picture[0], 5, space="image") == []
    again.close()


def test_unclean_close_recovers_the_image_space(tmp_path: Path, settings: Settings) -> None:
    store = Store.create(tmp_path / "s", model="text-model", dim=32, settings=settings)
    store.ensure_space("image", model="clip", dim=64, weights_sha256="a" * 64)
    with store.catalog.transaction() as db:
        file_id = store.catalog.put_file(db, "shot.png", size=1, mtime_ns=1)
        ids = store.catalog.replace_chunks(db, file_id, [ChunkRow(1, 1, "image", space="image")])
    store.add_vectors(ids, unit_vectors(1, 64), space="image")
    store.checkpoint([(file_id, "h")])
    for shard in (tmp_path / "s" / "spaces" / "image" / "shards").iterdir():
        shard.unlink()  # lost before a crash: the exact log rebuilds it
    store.catalog.close()
    store.lock.release()  # type: ignore[union-attr]  # a writer killed without closing
    again = Store.open(tmp_path / "s", settings=settings, writable=True)
    assert again.recovered["rebuilt_shards"] == 1
    assert again.catalog.file("shot.png").hash == "h"  # type: ignore[union-attr]
    assert [i for i, _ in again.dense_search(unit_vectors(1, 64)[0], 3, space="image")] == ids
    again.close()


def test_format_3_store_opens_and_migrates(tmp_path: Path, settings: Settings) -> None:
    store = Store.create(tmp_path / "s", model="text-model", dim=32, settings=settings)
    ids = add_file(store, "a.py", unit_vectors(2, 32))
    store.close()
    db = sqlite3.connect(tmp_path / "s" / "store.db")  # as semlith wrote it before spaces
    db.executescript("DROP TABLE spaces; ALTER TABLE chunks DROP COLUMN space;"
                     "UPDATE meta SET value='3' WHERE key='format_version';"
                     "PRAGMA user_version = 6;")
    db.close()
    reader = Store.open(tmp_path / "s", settings=settings)  # a reader has it upgraded
    assert reader.catalog.meta("format_version") == "4"
    assert reader.space("text") == SpaceRecord("text", "text-model", 32, "")
    assert sorted(i for i, _ in reader.dense_search(unit_vectors(2, 32)[0], 2)) == ids
    assert reader.catalog.chunk_rows(1)[0][1].space == "text"
    reader.close()


# -- indexing image files -------------------------------------------------------------


def image_tree(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "app.py").write_text("def handler():\n    return 'ingest pipeline'\n")
    (root / "diagram.svg").write_text("<svg><text>ingest pipeline</text></svg>\n")
    (root / "shots").mkdir()
    for n in range(3):
        (root / "shots" / f"screen-{n}.png").write_bytes(encode(photo(n)))
    (root / "shots" / "photo.jpg").write_bytes(encode(photo(7), "JPEG"))
    (root / "shots" / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    (root / "shots" / "cut.jpg").write_bytes(encode(photo(8), "JPEG")[:500])
    (root / "shots" / "bomb.png").write_bytes(_png_header(20000, 20000))
    return root


def run_index(store: Store, root: Path, model: object | None) -> IndexReport:
    factory = None if model is None else (lambda: model)
    return Indexer(store, root, lambda: HashEmbedder(dim=32),
                   images=factory).run()  # type: ignore[arg-type]


def test_index_puts_images_in_their_space(tmp_path: Path, settings: Settings,
                                          tiny: ClipEmbedder) -> None:
    root = image_tree(tmp_path / "tree")
    store = Store.create(root / ".semlith", model="test-hash", dim=32, settings=settings)
    report = run_index(store, root, tiny)
    assert report.indexed == 6  # app.py, diagram.svg (text) and four images
    skipped = store.catalog.skipped()
    assert sorted(skipped) == ["shots/bomb.png", "shots/broken.png", "shots/cut.jpg"]
    assert {r.reason for r in skipped.values()} == {"unreadable"}  # one reason each
    assert skipped["shots/bomb.png"].detail == "image too large (400,000,000 pixels; cap 40 MP)"
    assert skipped["shots/cut.jpg"].detail.startswith("image:")
    assert store.space("image") == SpaceRecord("image", tiny.name, 64, tiny.sha256)
    rows = store.catalog.chunk_rows(store.catalog.file("shots/screen-1.png").id)  # type: ignore[union-attr]
    assert [(r.kind, r.space, r.text) for _, r in rows] == \
        [("image", "image", "image screen 1 320x240 png")]
    assert store.catalog.chunk_rows(store.catalog.file("diagram.svg").id)[0][1].space == "text"  # type: ignore[union-attr]
    hits = store.dense_search(tiny.embed_images([photo(1).resize((160, 120))])[0], 1,
                              space="image")
    assert store.catalog.chunks([hits[0][0]])[hits[0][0]].path == "shots/screen-1.png"
    assert store.stats()["spaces"]["image"]["vectors"] == 4
    assert run_index(store, root, tiny).indexed == 0  # nothing changed: nothing redone
    store.close()


def test_images_skipped_without_extra_or_weights(tmp_path: Path, settings: Settings,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 tiny: ClipEmbedder) -> None:
    root = image_tree(tmp_path / "tree")
    store = Store.create(root / ".semlith", model="test-hash", dim=32, settings=settings)
    monkeypatch.setattr(clip, "images_extra_installed", lambda: False)
    run_index(store, root, None)
    assert store.catalog.skipped()["shots/photo.jpg"].reason == "images extra not installed"
    monkeypatch.undo()
    monkeypatch.delenv("SEMLITH_CLIP_WEIGHTS", raising=False)
    run_index(store, root, None)  # the extra now, but no weights
    reason = store.catalog.skipped()["shots/photo.jpg"].reason
    assert "SEMLITH_CLIP_WEIGHTS" in reason and "semlith models --download" in reason
    assert store.space("image") is None  # never random weights
    assert run_index(store, root, tiny).indexed == 4  # weights at last: retried
    assert "shots/photo.jpg" not in store.catalog.skipped()
    store.close()


def test_image_space_refuses_other_weights(tmp_path: Path, settings: Settings,
                                           tiny: ClipEmbedder) -> None:
    root = image_tree(tmp_path / "tree")
    store = Store.create(root / ".semlith", model="test-hash", dim=32, settings=settings)
    run_index(store, root, tiny)
    (root / "shots" / "new.png").write_bytes(encode(photo(30)))

    class Other:
        name, dim, sha256 = "other", 64, "f" * 64

    run_index(store, root, Other())
    assert "built with" in store.catalog.skipped()["shots/new.png"].reason
    store.close()


def test_a_killed_image_run_resumes_without_doubles(tmp_path: Path, settings: Settings,
                                                    tiny: ClipEmbedder) -> None:
    root = image_tree(tmp_path / "tree")
    for n in range(20):
        (root / "shots" / f"more-{n}.png").write_bytes(encode(photo(40 + n)))
    store = Store.create(root / ".semlith", model="test-hash", dim=32, settings=settings)

    class Dies:
        name, dim, sha256 = tiny.name, tiny.dim, tiny.sha256
        prepare = staticmethod(tiny.prepare)
        calls = 0

        def embed_prepared(self, batch: np.ndarray) -> np.ndarray:
            self.calls += 1
            if self.calls == 2:
                raise KeyboardInterrupt  # killed mid-run, after one batch was committed
            return tiny.embed_prepared(batch)

    with pytest.raises(KeyboardInterrupt):
        run_index(store, root, Dies())
    store.close()
    store = Store.open(root / ".semlith", settings=settings, writable=True)
    committed = sum(1 for f in store.catalog.files() if f.hash and is_image(f.path))
    assert 0 < committed < 24
    run_index(store, root, tiny)
    image_chunks = store.catalog.db.execute(
        "SELECT COUNT(*) FROM chunks WHERE space='image'").fetchone()[0]
    assert image_chunks == 24
    live = store.catalog.vector_ids("image")
    assert len(live) == 24
    found = store.dense_search(tiny.embed_images([photo(40)])[0], 100, space="image")
    assert sorted(i for i, _ in found) == sorted(int(i) for i in live)  # no stale vectors
    store.close()


def test_a_text_only_store_never_imports_torch(tmp_path: Path) -> None:
    """Indexing and searching a tree without images, as the CLI does, in a fresh process."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "app.py").write_text("def handler():\n    return 'ingest pipeline'\n")
    (root / "notes.svg").write_text("<svg><text>diagram</text></svg>\n")
    script = (
        "import sys\n"
        "from semlith.cli import main\n"
        "for argv in (['index', sys.argv[1]], ['search', 'ingest pipeline', '--store',"
        " sys.argv[1] + '/.semlith']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit as exit:\n"
        "        assert not exit.code, exit.code\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('torch', 'open_clip', 'torchvision', 'PIL'))\n"
        "print('LOADED', loaded)\n")
    done = subprocess.run([sys.executable, "-c", script, str(root)], capture_output=True,
                          text=True, timeout=300, cwd=root)
    assert done.returncode == 0, done.stderr
    assert "app.py" in done.stdout
    assert "LOADED []" in done.stdout


# -- searching ------------------------------------------------------------------------


def library(settings: Settings, agent: bool = False) -> LocalLibrary:
    return LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n), agent=agent)


@pytest.fixture
def indexed(tmp_path: Path, tiny_weights: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SEMLITH_CLIP_WEIGHTS", str(tiny_weights))
    root = image_tree(tmp_path / "tree")
    for n, image in enumerate(distractors()):
        (root / "shots" / f"other-{n}.png").write_bytes(encode(image))
    assert run("index", str(root)).exit_code == 0
    return root


def test_cli_image_to_image(indexed: Path) -> None:
    probe = indexed.parent / "probe.jpg"  # outside the root: a person may ask with any file
    probe.write_bytes(encode(photo(1).crop((4, 3, 316, 237)), "JPEG", quality=70))
    result = run("search", "--image", str(probe), "--store", str(indexed / ".semlith"),
                 "-k", "3")
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert first.startswith("shots/screen-1.png (image 320x240)  (")
    assert all("(image " in line for line in result.output.splitlines())  # images only
    stats = run("stats", "--store", str(indexed / ".semlith")).output
    assert "image space local-dir:tiny (64 dimensions), 24 vectors" in stats
    missing = run("search", "--image", str(indexed / "nope.png"), "--store",
                  str(indexed / ".semlith"))
    assert missing.exit_code == 1 and "cannot read" in missing.output
    assert run("search").exit_code == 2  # neither a query nor an image


def test_text_query_reaches_images(indexed: Path, settings: Settings) -> None:
    answer = library(settings).search("screen 1 png", k=5)
    images = [h for h in answer.hits if h.kind == "image"]
    assert images and images[0].locator == "shots/screen-1.png:1-1"
    assert any(h.path == "app.py" for h in library(settings).search("handler", k=5).hits)


def test_agent_image_search_stays_inside_roots(indexed: Path, settings: Settings) -> None:
    agent = library(settings, agent=True)
    inside = agent.search("", image=str(indexed / "shots" / "screen-2.png"), k=1)
    assert inside.hits[0].path == "shots/screen-2.png"
    outside = indexed.parent / "elsewhere.png"
    outside.write_bytes(encode(photo(2)))
    with pytest.raises(BadTarget, match="not inside an indexed root"):
        agent.search("", image=str(outside))


def test_models_lists_the_image_model(tiny_weights: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    line = [ln for ln in run("models").output.splitlines() if ln.startswith("clip-vit-b-32")]
    assert len(line) == 1 and "download" in line[0] and "available" not in line[0]
    monkeypatch.setenv("SEMLITH_CLIP_WEIGHTS", str(tiny_weights))
    assert "ready" in next(ln for ln in run("models").output.splitlines()
                           if ln.startswith("clip-vit-b-32"))


# -- reading an image -----------------------------------------------------------------


def test_read_of_an_image_gives_metadata_and_a_bounded_copy(indexed: Path,
                                                           settings: Settings) -> None:
    big = Image.fromarray(np.random.default_rng(5).integers(0, 256, (1200, 1600, 3),
                                                             dtype=np.uint8))
    (indexed / "shots" / "big.png").write_bytes(encode(big))
    library(settings).index([str(indexed)])
    plain = library(settings, agent=True).read("shots/big.png")
    assert plain.lines[0].startswith("image 1600x1200 PNG, ") and plain.image == ""
    passage = library(settings, agent=True).read("shots/big.png", include_image=True)
    data = base64.b64decode(passage.image)
    assert len(data) <= 256 << 10 and passage.image_mime == "image/jpeg"
    assert Image.open(io.BytesIO(data)).size == (512, 384)


def test_mcp_read_attaches_the_image_when_asked(indexed: Path, settings: Settings) -> None:
    engine = Engine(settings, lambda name: HashEmbedder(name))
    app, fleet, keys = app_over_fleet(settings, engine)
    try:
        with TestClient(app, base_url="http://127.0.0.1:7365") as client:
            session = open_session(client, {"Authorization": f"Bearer {keys.agent}", **ACCEPT,
                                             "Semlith-Roots": str(indexed)})

            def read(**extra: object) -> list[dict[str, Any]]:
                answer = client.post("/mcp", headers=session, json={
                    "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
                        "name": "semlith_read",
                        "arguments": {"target": "shots/screen-0.png", **extra}}})
                result = answer.json()["result"]
                assert not result["isError"], result
                return list(result["content"])

            assert [c["type"] for c in read()] == ["text"]
            text, image = read(include_image=True)
            assert text["text"].startswith("shots/screen-0.png:1-1\n")
            assert "image 320x240 PNG" in text["text"]
            assert image["type"] == "image" and image["mimeType"] == "image/png"
            data = base64.b64decode(image["data"])
            assert len(data) <= 256 << 10 and Image.open(io.BytesIO(data)).size == (320, 240)
            found = client.post("/api/search", headers={  # the daemon's route for the CLI
                "Authorization": f"Bearer {keys.control}", **ACCEPT}, json={
                "query": "", "k": 1, "image": str(indexed / "shots" / "screen-2.png"),
                "scope": {"stores": ["*"]}})
            assert found.status_code == 200, found.text
            assert found.json()["hits"][0]["path"] == "shots/screen-2.png"
    finally:
        fleet.close()
        engine.close()


@pytest.mark.slow
def test_kill_minus_nine_while_indexing_images(tmp_path: Path, settings: Settings,
                                                tiny_weights: Path) -> None:
    """`semlith index` killed at random moments: every committed image keeps its vector in
    the image space, and the run that finishes leaves each image exactly once."""
    root = tmp_path / "tree"
    (root / "shots").mkdir(parents=True)
    for n in range(300):
        (root / "shots" / f"s{n:03}.png").write_bytes(encode(photo(200 + n, (320, 240))))
    env = {**os.environ, "SEMLITH_CLIP_WEIGHTS": str(tiny_weights)}
    command = [sys.executable, "-m", "semlith", "index", str(root)]
    rng = np.random.default_rng(1)
    kills = 0
    for _ in range(12):  # killed at a random moment, until a run gets to finish
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(float(rng.uniform(1.5, 6.0)))
        proc.kill()
        if proc.wait() != -signal.SIGKILL:
            break
        kills += 1
        if (root / ".semlith" / "store.db").exists():
            _assert_images_consistent(root / ".semlith", settings)
    # On an idle machine a run can finish inside a second random wait (seen in a fresh
    # clone's run): one kill mid-run is what the checks above need.
    assert kills >= 1
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert _assert_images_consistent(root / ".semlith", settings) == 300
    with Store.open(root / ".semlith", settings=settings) as store:
        assert store.catalog.db.execute(
            "SELECT COUNT(*) FROM chunks WHERE space='image'").fetchone()[0] == 300


def _assert_images_consistent(folder: Path, settings: Settings) -> int:
    """Open as the next writer would; check the image space holds every committed image.
    Returns how many are committed."""
    with Store.open(folder, settings=settings, writable=True, command="checker") as store:
        committed = store.catalog.vector_ids("image")
        space = store.spaces.get("image")
        if space is None:
            assert len(committed) == 0
            return 0
        assert isinstance(space, LocalSpace)
        found, _ = space.exact.fetch(committed)
        assert found.all(), "a committed image has no exact vector"
        for first in space.shards.listing():
            part = committed[(committed >= first) & (committed < first + 65536)]
            assert space.shards.holds_all(first, part)
        live = store.dense_search(np.ones(space.dim, np.float32) / np.sqrt(space.dim), 500,
                                  space="image")
        assert {int(i) for i in committed} <= {i for i, _ in live}  # all searchable
        return len(committed)


def test_progress_names_each_image(tmp_path: Path, settings: Settings,
                                   tiny: ClipEmbedder) -> None:
    root = image_tree(tmp_path / "tree")
    store = Store.create(root / ".semlith", model="test-hash", dim=32, settings=settings)
    events: list[Progress] = []
    Indexer(store, root, lambda: HashEmbedder(dim=32), on_progress=events.append,
            images=lambda: tiny).run()
    named = {e.path for e in events if e.phase == "read"}
    assert {"shots/screen-0.png", "shots/photo.jpg", "app.py"} <= named
    store.close()
