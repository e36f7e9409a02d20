"""Every domain exception semlith raises; everything else uses built-ins with the bad
value in the message.

They live together so that every boundary can name them: the CLI prints any
`SemlithError` (and `ValueError`) as one line, the MCP tools return it as a sentence,
and the daemon's JSON API sends its class name (`{"error", "kind"}`), which the
daemon-backed library (semlith/remote.py) raises again as the same class.

A message names no command: a person reads it from the CLI and an agent from an MCP
tool, and each acts in its own terms. Where a message points to a next step, the error
carries a `Hint`, which each adapter words for its reader (`worded`): the CLI names
commands and flags (`semlith files`, `--store`), an MCP tool names tools and arguments
(`semlith_files`, `stores`). The daemon's API carries the hint beside the message.
"""

from collections.abc import Mapping
from enum import StrEnum


class Hint(StrEnum):
    """A next step a message points to, worded by each adapter."""

    LIST_FILES = "list-files"  # see what is indexed
    FIND = "find"  # see what is indexed, or search for it
    CHOOSE_STORE = "choose-store"  # name a store, or every store
    INDEX = "index"  # create a store


HINT_NAMES = frozenset(hint.value for hint in Hint)


class SemlithError(Exception):
    """Base of every error semlith reports to a person or an agent in one line."""

    def __init__(self, *args: object, hint: Hint | str | None = None) -> None:
        super().__init__(*args)
        # the daemon's API carries the hint as text ("" for none)
        self.hint = Hint(hint) if isinstance(hint, str) and hint in HINT_NAMES else None


def worded(exc: BaseException, words: Mapping[Hint, str]) -> str:
    """`exc`'s message, with its hint (if any) in the words of one adapter."""
    hint = getattr(exc, "hint", None)
    return f"{exc}; {words[hint]}" if isinstance(hint, Hint) and hint in words else str(exc)


class StoreNotFound(SemlithError):
    """No store exists where one was asked for."""


class StoreFormatError(SemlithError):
    """The store was written by a format this version cannot read."""


class StoreLocked(SemlithError):
    """Another process holds the store's writer lock."""


class StoreCorrupt(SemlithError):
    """A store file cannot be read and cannot be rebuilt from the others."""


class ModelError(SemlithError):
    """The embedding model is missing, mismatched or failed to load."""


class BackendError(SemlithError):
    """A store's backend (Milvus) cannot be parsed, reached or used."""


class RefusedFolder(SemlithError):
    """An index request names a folder that is not indexed unless asked for by name."""


class UnknownStore(SemlithError):
    """A request named a store that does not exist (or is not served)."""


class BadTarget(SemlithError):
    """A read target (a locator, a path, a symbol, an image) that cannot be served."""


class NothingSelected(SemlithError):
    """The filters select no indexed file in any store."""


class DaemonNotRunning(SemlithError):
    """An operation that needs the daemon found none."""


class DaemonError(SemlithError):
    """The daemon could not be reached or started, or failed in a way it did not explain."""


class DaemonHung(DaemonError):
    """The daemon's process lives but answers nothing, not even its health check."""


class CannotServe(SemlithError):
    """The daemon cannot start (port taken, another daemon, no store)."""


class BadRequest(ValueError):
    """A malformed request to the daemon's JSON API (not JSON, a field of the wrong type)."""


class UnknownSymbol(SemlithError):
    """A name that no definition has; the message lists the nearest real names."""


class Busy(SemlithError):
    """The daemon is already doing as much of this kind of work as it takes at once."""
