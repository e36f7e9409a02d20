"""Every domain exception semlith raises; everything else uses built-ins with the bad
value in the message.

They live together so that every boundary can name them: the CLI prints any
`SemlithError` (and `ValueError`) as one line, the MCP tools return it as a sentence,
and the daemon's JSON API sends its class name (`{"error", "kind"}`), which the
daemon-backed library (semlith/remote.py) raises again as the same class.
"""


class SemlithError(Exception):
    """Base of every error semlith reports to a person or an agent in one line."""


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


class CannotServe(SemlithError):
    """The daemon cannot start (port taken, another daemon, no store)."""


class BadRequest(ValueError):
    """A malformed request to the daemon's JSON API (not JSON, a field of the wrong type)."""


class UnknownSymbol(SemlithError):
    """A name that no definition has; the message lists the nearest real names."""


class Busy(SemlithError):
    """The daemon is already doing as much of this kind of work as it takes at once."""
