"""The image side of an index run: image files -> one chunk each in the `image` space.

An image is read (upright, bombs refused by header), written as one chunk whose text is a
short description for the keyword index, preprocessed at once (so a batch holds 224 px
arrays, not decoded photos) and embedded in small batches by CLIP. The same crash
protocol as text: the rows are written with an empty hash, the vectors made durable, and
only then the hashes committed, so a run killed anywhere redoes only unfinished files.

The model is loaded on the first image that needs it, never for a store without images.
When it cannot be loaded (no extra, no weights, a space built by other weights) every
image is skipped with that one reason and the text run goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from semlith.base.text import split_identifiers
from semlith.errors import ModelError
from semlith.ingest.formats.limits import Unreadable
from semlith.store import ChunkRow, Store

IMAGE_SPACE = "image"
# Images embedded per checkpoint: ViT-B-32 takes 69-104 ms an image at batch 8 against
# 120-157 ms one at a time (docs/images.md, "Costs").
BATCH = 8


class ImageModel(Protocol):
    """What indexing needs from an image model (`semlith.embed.clip.ClipEmbedder`)."""

    name: str
    dim: int
    sha256: str

    def prepare(self, image: Any) -> np.ndarray: ...

    def embed_prepared(self, batch: np.ndarray) -> np.ndarray: ...


@dataclass(slots=True)
class _Batch:
    done: list[tuple[int, str]] = field(default_factory=list)  # (file id, hash)
    ids: list[int] = field(default_factory=list)
    arrays: list[np.ndarray] = field(default_factory=list)


def default_model(store: Store) -> Callable[[], ImageModel]:
    def load() -> ImageModel:
        from semlith.embed.clip import ClipEmbedder

        return ClipEmbedder.load(store.settings.models_dir, store.settings.clip_weights)
    return load


class ImageIndexer:
    """Indexes the image files of one run; `add` each, then `flush`."""

    def __init__(self, store: Store, model: Callable[[], ImageModel],
                 put_file: Callable[[Any, str, int, int], int]) -> None:
        self.store = store
        self._factory = model
        self._model: ImageModel | None = None
        self._refused: str | None = None  # why no image can be indexed in this run
        self._put_file = put_file  # (db, rel, size, mtime_ns) -> file id
        self._batch = _Batch()
        self.embedded = 0

    def refusal(self) -> str | None:
        """Why images cannot be indexed (the skip reason of each), or None."""
        if self._refused is None and self._model is None:
            from semlith.embed.clip import EXTRA_MISSING, images_extra_installed

            if not images_extra_installed():
                self._refused = EXTRA_MISSING
        return self._refused

    def add(self, rel: str, data: bytes, size: int, mtime_ns: int,
            digest: str) -> tuple[str, str] | None:
        """Write and queue one image; (skip reason, detail) when it cannot be indexed."""
        from semlith.ingest.images import describe, read_image

        reason = self.refusal()
        if reason is not None:
            return reason, ""
        try:
            image = read_image(data)
        except Unreadable as exc:
            return "unreadable", str(exc)
        model = self._load()
        if model is None:
            return str(self._refused), ""
        text = describe(rel, image)
        row = ChunkRow(1, 1, text, "image", "", split_identifiers(text), space=IMAGE_SPACE)
        catalog = self.store.catalog
        with catalog.transaction() as db:
            file_id = self._put_file(db, rel, size, mtime_ns)
            ids = catalog.replace_chunks(db, file_id, [row])
            catalog.clear_skipped(db, rel)
        self._batch.done.append((file_id, digest))
        self._batch.ids.extend(ids)
        self._batch.arrays.append(model.prepare(image.image))
        if len(self._batch.ids) >= BATCH:
            self.flush()
        return None

    def flush(self) -> None:
        """Embed the queued images, make their vectors durable, commit their hashes."""
        batch, self._batch = self._batch, _Batch()
        if not batch.ids or self._model is None:
            return
        vectors = self._model.embed_prepared(np.stack(batch.arrays))
        self.store.add_vectors(batch.ids, vectors, space=IMAGE_SPACE)
        self.store.checkpoint(batch.done)
        self.embedded += len(batch.ids)

    def _load(self) -> ImageModel | None:
        if self._model is None and self._refused is None:
            try:
                model = self._factory()
                self.store.ensure_space(IMAGE_SPACE, model=model.name, dim=model.dim,
                                        weights_sha256=model.sha256)
                self._model = model
            except ModelError as exc:
                self._refused = str(exc)
        return self._model
