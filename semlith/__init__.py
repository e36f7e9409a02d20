"""semlith: a local semantic search daemon for coding agents and editors."""

__version__ = "0.1.0"
