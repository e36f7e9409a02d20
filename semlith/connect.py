"""`open_library`: the one place that may import both implementations of `Library`."""

from __future__ import annotations

from semlith.base.home import read_discovery
from semlith.base.settings import Settings
from semlith.library import EmbedderFactory, Library


def open_library(settings: Settings, *, embedder_factory: EmbedderFactory | None = None,
                 daemon: bool = True) -> Library:
    """The running daemon's library when one answers (and `daemon`): its model is loaded
    and it is the stores' one writer; else one in this process."""
    # No discovery file, no daemon: the HTTP client is not even imported (issue #45).
    if daemon and read_discovery(settings.home) is not None:
        from semlith.remote import RemoteLibrary

        remote = RemoteLibrary.connect(settings)
        if remote is not None:
            return remote
    from semlith.local import LocalLibrary

    return LocalLibrary(settings, embedder_factory=embedder_factory)
