"""The few domain exceptions; everything else uses built-ins with the bad value in the message."""


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
