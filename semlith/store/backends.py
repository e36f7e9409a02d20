"""Which engine holds a store's text chunks, chosen in one place by the backend URI.

A store records its backend in meta (`backend`, without credentials) when it is made
and keeps it. No backend: the store's own folder (`LocalSpace`, `LocalCorpus`). Any
other is looked up by the URI's scheme, before any `+` (`milvus://`, `milvus+https://`,
`milvus+lite://` are all "milvus"), in `BACKENDS`: a new engine is one entry here and
the classes it names, as uvicorn picks its loop and protocol implementations by name.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Protocol

from semlith.errors import BackendError
from semlith.store.corpus import Corpus, StoreParts
from semlith.store.query import exported_chunks

if TYPE_CHECKING:  # the engine's modules load with the first store that has one: a
    from semlith.store.milvus.target import MilvusTarget  # local store's grep imports
    from semlith.store.vectors import VectorSpace  # none of them (#45)


class Backend(Protocol):
    """What a store needs from the engine its backend URI names."""

    def named(self, uri: str, *, model: str, repo: str) -> str:
        """The URI a store of `model` indexing `repo` records (defaults filled in);
        BackendError names what is wrong with it."""
        ...

    def identity(self, uri: str) -> tuple[str, ...]:
        """What makes two recorded URIs the same place (options aside)."""
        ...

    def claim(self, named: str, *, model: str, dim: int) -> None:
        """Make a new store the owner of its rows: delete what an older one left."""
        ...

    def open(self, store: StoreParts, recorded: str, *, mirror: bool
             ) -> tuple[VectorSpace, Corpus]:
        """The store's text space and its corpus."""
        ...

    def describe(self, recorded: str) -> tuple[str, int]:
        """(model, dim) of the data a mirror of `recorded` reads."""
        ...


class Milvus:
    """A Milvus collection (store/milvus.py, store/milvus_corpus.py; docs/scale-out.md)."""

    def named(self, uri: str, *, model: str, repo: str) -> str:
        return str(_target(uri).named(model=model, repo=repo))

    def identity(self, uri: str) -> tuple[str, ...]:
        target = _target(uri)
        return target.uri, target.collection, target.repo

    def claim(self, named: str, *, model: str, dim: int) -> None:
        from semlith.store.milvus.space import MilvusSpace

        MilvusSpace.claim_repo(_target(named), model=model, dim=dim)

    def open(self, store: StoreParts, recorded: str, *, mirror: bool
             ) -> tuple[VectorSpace, Corpus]:
        from semlith.store.milvus.corpus import MilvusCorpus
        from semlith.store.milvus.space import MilvusSpace

        space = MilvusSpace(_target(recorded), model=store.model, dim=store.dim,
                            rows=partial(exported_chunks, store.catalog), reader=mirror)
        return space, MilvusCorpus(store, space, mirror=mirror)

    def describe(self, recorded: str) -> tuple[str, int]:
        from semlith.store.milvus.space import MilvusSpace

        return MilvusSpace.collection_model(_target(recorded))


def _target(uri: str) -> MilvusTarget:
    from semlith.store.milvus.target import MilvusTarget

    return MilvusTarget.parse(uri)


BACKENDS: dict[str, Backend] = {"milvus": Milvus()}


def backend_for(uri: str) -> Backend:
    """The engine a backend URI names; BackendError for a scheme semlith does not know."""
    scheme = uri.partition("://")[0].partition("+")[0] if "://" in uri else ""
    backend = BACKENDS.get(scheme)
    if backend is None:
        raise BackendError(f"unknown backend {uri!r}: use milvus://HOST:PORT/COLLECTION"
                           " or milvus+lite:///PATH.db")
    return backend
