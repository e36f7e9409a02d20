"""What this installation supports, as `semlith models`, `languages` and `formats` list
it (`Library.models`, `languages`, `formats`): values shaped as `semlith.types` shapes
its others."""

from __future__ import annotations

from dataclasses import dataclass

from semlith.types import Value


@dataclass(frozen=True, slots=True)
class ModelEntry(Value):
    """An embedding model this installation can use (`semlith models`)."""

    name: str
    dim: int
    state: str  # built | not built | needs <install> | downloaded | download | ...
    size_mb: float | None  # on disk when built or downloaded, else the measured build size
    speed: str  # measured indexing and query speed, or ""
    source: str  # where the weights come from
    default: bool = False
    images: bool = False  # the image model (CLIP), not a text one


@dataclass(frozen=True, slots=True)
class LanguageEntry(Value):
    """A language semlith recognises (`semlith languages`): how its files are cut."""

    name: str
    strategy: str  # definitions | headings | lines
    names: tuple[str, ...]  # extensions and file names


@dataclass(frozen=True, slots=True)
class FormatEntry(Value):
    """A document format (`semlith formats`): what reads it, whether that is installed."""

    language: str
    extensions: tuple[str, ...]
    package: str
    installed: bool
    note: str = ""  # how to install the reader when it is missing
