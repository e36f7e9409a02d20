"""CLIP image and text embeddings through open_clip (the `images` extra), loaded lazily.

Nothing here imports torch at module level: a text-only store never pays for it. The
weights come from `SEMLITH_CLIP_WEIGHTS` (a file: OpenAI's ViT-B-32 checkpoint; or a
folder in open_clip's `local-dir:` layout, `open_clip_config.json` plus weights, which is
how tests pass a tiny seeded model) or else from the file `semlith models --download
clip-vit-b-32` put in the models folder. A missing model is a `ModelError` naming both
ways; there is never a fallback to random weights.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from semlith.errors import ModelError

CLIP_MODEL = "clip-vit-b-32"
# open_clip's name for OpenAI's ViT-B-32 weights: they were trained with QuickGELU.
OPENCLIP_ARCH = "ViT-B-32-quickgelu"
# open_clip's published OpenAI weights; the folder name is the file's sha256 (open_clip
# checks the same prefix: open_clip/pretrained.py).
CLIP_SHA256 = "40d365715913c9da98579312b702a82c18be219cc2a73407c4526f58eba950af"
CLIP_URL = f"https://openaipublic.azureedge.net/clip/models/{CLIP_SHA256}/ViT-B-32.pt"
WEIGHTS_FILE = "ViT-B-32.pt"
LOCAL_DIR_CONFIG = "open_clip_config.json"
EXTRA_MISSING = "images extra not installed"
INSTALL_HINT = "pip install 'semlith[images]'"
NO_WEIGHTS = ("no CLIP weights: set SEMLITH_CLIP_WEIGHTS=/path/to/ViT-B-32.pt or run "
              f"`semlith models --download {CLIP_MODEL}`")
# OpenAI's normalisation (open_clip/constants.py): used when a model records none.
OPENAI_MEAN = (0.48145466, 0.4578275, 0.40821073)
OPENAI_STD = (0.26862954, 0.26130258, 0.27577711)
_CHUNK = 1 << 20


def images_extra_installed() -> bool:
    """Whether the `images` extra's packages are installed (found, not imported: cheap).

    An installed but broken torch shows up when the model loads, as a `ModelError`.
    """
    return all(importlib.util.find_spec(name) is not None
               for name in ("torch", "open_clip", "PIL"))


def weights_path(models_dir: Path, given: Path | None = None) -> Path | None:
    """The weights to load: `given` (SEMLITH_CLIP_WEIGHTS), else the downloaded file,
    else None."""
    if given is not None:
        if not given.exists():
            raise ModelError(f"SEMLITH_CLIP_WEIGHTS names {str(given)!r}, which does not exist")
        return given
    downloaded = models_dir / CLIP_MODEL / WEIGHTS_FILE
    return downloaded if downloaded.is_file() else None


def weights_state(models_dir: Path, given: Path | None = None) -> str:
    """`semlith models`' state column: not installed, weights to download, named but
    missing, or ready."""
    if not images_extra_installed():
        return "no extra"
    try:
        return "ready" if weights_path(models_dir, given) is not None else "download"
    except ModelError:
        return "missing"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while block := file.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def download_weights(models_dir: Path, *, url: str = CLIP_URL,
                     sha256: str = CLIP_SHA256) -> Path:
    """Fetch the weights into `models_dir/clip-vit-b-32/`, hash-checked.

    Written to a temp file beside the target and renamed only once its sha256 matches: a
    failed or wrong download leaves nothing behind. Raises ModelError.
    """
    folder = models_dir / CLIP_MODEL
    target = folder / WEIGHTS_FILE
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=".download-", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=60) as response:
            while block := response.read(_CHUNK):
                digest.update(block)
                out.write(block)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != sha256:
            raise ModelError(f"download of {url!r} has sha256 {digest.hexdigest()}, "
                             f"expected {sha256}; nothing was kept")
        os.replace(tmp, target)
    except OSError as exc:
        raise ModelError(f"could not download {url!r}: {exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
        if not any(folder.iterdir()):
            folder.rmdir()
    return target


def import_open_clip() -> Any:
    """Import open_clip, working around torchvision 0.28.0's CUDA build beside CPU torch.

    That wheel registers a fake kernel for `torchvision::nms` whose op its (unloadable)
    CUDA library never defined, so `import torchvision` raises RuntimeError. Defining the
    two op schemas first lets it import; CLIP uses neither op. Where torchvision imports
    normally this does nothing. (Found and measured in the images research, issue #14;
    /work/scratch-clip/tv_compat.py.)
    """
    try:
        import torchvision
    except RuntimeError as exc:
        if "torchvision::nms does not exist" not in str(exc):
            raise
        for name in [n for n in sys.modules if n == "torchvision" or n.startswith("torchvision.")]:
            del sys.modules[name]
        import torch

        global _TV_OPS
        _TV_OPS = torch.library.Library(  # type: ignore[no-untyped-call]
            "torchvision", "DEF")  # keep the reference: dropping it unregisters the ops
        _TV_OPS.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        _TV_OPS.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        import torchvision  # noqa: F401
    import open_clip

    return open_clip


_TV_OPS: Any = None


def preprocess(image: Any, size: int, mean: Sequence[float], std: Sequence[float]) -> np.ndarray:
    """open_clip's eval transform in PIL and numpy: (3, size, size) float32.

    Shortest side to `size` (bicubic), centre crop, then RGB (open_clip converts after
    resizing), scaled and normalised. Bit-exact with `open_clip.image_transform` (checked
    on 16 shapes and modes in the research for issue #14), without torchvision.
    """
    from PIL import Image

    w, h = image.size
    new_w, new_h = (size, int(size * h / w)) if w <= h else (int(size * w / h), size)
    if (new_w, new_h) != (w, h):
        image = image.resize((new_w, new_h), Image.Resampling.BICUBIC)
    top = round((new_h - size) / 2.0)  # Python round, as torchvision
    left = round((new_w - size) / 2.0)
    image = image.crop((left, top, left + size, top + size)).convert("RGB")
    x = np.asarray(image, dtype=np.uint8).astype(np.float32) / np.float32(255)
    x = x.transpose(2, 0, 1)
    m = np.asarray(mean, np.float32)[:, None, None]
    s = np.asarray(std, np.float32)[:, None, None]
    return np.ascontiguousarray((x - m) / s, dtype=np.float32)


class ClipEmbedder:
    """One open_clip model: images and query text into the same unit vectors."""

    def __init__(self, weights: Path, *, threads: int = 1) -> None:
        try:
            open_clip = import_open_clip()
            import torch
        except (ImportError, RuntimeError) as exc:
            raise ModelError(f"{EXTRA_MISSING} or broken ({exc}); {INSTALL_HINT}") from None
        # One thread: under contention libgomp's busy-wait made 2 threads 4-15x slower
        # (docs/images.md, "Costs").
        torch.set_num_threads(threads)
        self._torch = torch
        try:
            if weights.is_dir():
                spec = f"local-dir:{weights}"
                self._model = open_clip.create_model(spec)
                self._tokenizer = open_clip.get_tokenizer(spec)
                self.name = f"local-dir:{weights.name}"
                self.sha256 = _folder_sha256(weights)
            else:
                # OpenAI's file is a TorchScript archive, which open_clip's create_model
                # cannot read (torch.load refuses it with weights_only); this reader can,
                # and builds the QuickGELU model from it.
                self._model = open_clip.load_openai_model(str(weights), precision="fp32",
                                                          device="cpu")
                self._tokenizer = open_clip.get_tokenizer(OPENCLIP_ARCH)
                self.name = CLIP_MODEL
                self.sha256 = file_sha256(weights)
        except (OSError, RuntimeError, ValueError, KeyError) as exc:
            raise ModelError(f"could not load CLIP weights {str(weights)!r}: {exc}") from None
        self._model.eval()
        cfg = getattr(self._model.visual, "preprocess_cfg", {}) or {}
        size = cfg.get("size", getattr(self._model.visual, "image_size", 224))
        self.size = int(size[0] if isinstance(size, (tuple, list)) else size)
        self.mean = tuple(cfg.get("mean", OPENAI_MEAN))
        self.std = tuple(cfg.get("std", OPENAI_STD))
        self.dim = int(self.embed_text("").shape[0])

    @classmethod
    def load(cls, models_dir: Path, given: Path | None = None) -> ClipEmbedder:
        """The configured model; ModelError when the extra or the weights are missing."""
        if not images_extra_installed():
            raise ModelError(f"{EXTRA_MISSING}: {INSTALL_HINT}")
        path = weights_path(models_dir, given)
        if path is None:
            raise ModelError(NO_WEIGHTS)
        return cls(path)

    def embed_images(self, images: Sequence[Any]) -> np.ndarray:
        """Unit float32 rows, one per PIL image, in order."""
        if not images:
            return np.zeros((0, self.dim), np.float32)
        return self.embed_prepared(np.stack([self.prepare(im) for im in images]))

    def prepare(self, image: Any) -> np.ndarray:
        """A PIL image as the model's input, (3, size, size) float32."""
        return preprocess(image, self.size, self.mean, self.std)

    def embed_prepared(self, batch: np.ndarray) -> np.ndarray:
        """Unit float32 rows for a stack of `prepare`d images."""
        with self._torch.inference_mode():
            out = self._model.encode_image(self._torch.from_numpy(np.ascontiguousarray(batch)))
        return _unit(out.float().numpy())

    def embed_text(self, text: str) -> np.ndarray:
        """One unit float32 row for a query."""
        with self._torch.inference_mode():
            out = self._model.encode_text(self._tokenizer([text]))
        row: np.ndarray = _unit(out.float().numpy())[0]
        return row


# A small open_clip configuration for tests and benchmarks: 3.6 M parameters, ~1 ms an
# image on one thread (docs/images.md). Its weights are random: never a user's model.
TINY_CONFIG: dict[str, Any] = {
    "embed_dim": 64,
    "vision_cfg": {"image_size": 224, "layers": 2, "width": 64, "head_width": 32,
                   "patch_size": 32},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 64, "heads": 2,
                 "layers": 2}}


def save_seeded_model(folder: Path, config: dict[str, Any] | str = TINY_CONFIG,
                      seed: int = 0) -> Path:
    """Write a model with seeded random weights in the `local-dir:` layout, for tests and
    benchmarks: `config` is an open_clip config, or the name of one (its real cost)."""
    import torch
    from safetensors.torch import save_file

    open_clip = import_open_clip()
    if isinstance(config, str):
        name, config = config, open_clip.get_model_config(config)
    else:
        name = "semlith-seeded"
        with tempfile.TemporaryDirectory() as tmp:  # open_clip registers configs by file
            (Path(tmp) / f"{name}.json").write_text(json.dumps(config))
            open_clip.add_model_config(Path(tmp) / f"{name}.json")
    torch.manual_seed(seed)
    model = open_clip.create_model(name)
    folder.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()},
              str(folder / "open_clip_model.safetensors"))
    (folder / LOCAL_DIR_CONFIG).write_text(json.dumps({"model_cfg": config}))
    return folder


def _unit(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.ascontiguousarray(rows / np.maximum(norms, 1e-12), dtype=np.float32)


def _folder_sha256(folder: Path) -> str:
    """The sha256 of a `local-dir:` model: its config and weight files, by name."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.iterdir() if p.is_file()):
        digest.update(path.name.encode())
        digest.update(file_sha256(path).encode())
    return digest.hexdigest()
