"""One typed Settings object: flags > SEMLITH_* environment > defaults.

Nothing reads the environment at import time; `Settings.load()` does, once.
Every setting is listed in `SETTINGS_DOC` and documented in docs/configuration.md
(a test checks that the two agree).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from semlith.base.weights import Weights

# name of the environment variable -> one-line description (rendered into the docs).
SETTINGS_DOC: dict[str, str] = {
    "SEMLITH_HOME": "Folder for user state: store registry, agent key, daemon discovery "
    "(default `~/.semlith`).",
    "SEMLITH_INDEX_MEMORY": "Memory budget in MB (default 512): for resident vector "
    "shards while searching (shards beyond it are read back per query), and for indexing, "
    "where one file's work may take a quarter of it: a code file whose parse would need "
    "more is cut into line windows instead of at its definitions, one whose text alone "
    "would is skipped as too large (`files --skipped` says which and why).",
    "SEMLITH_PERF": "`off` disables every optimisation (dense search becomes an exact "
    "brute-force scan, caches are off) so a regression can be bisected in one step.",
    "SEMLITH_STORE": "Stores to search when `--store` is not given, as a PATH-style list "
    "(`:`-separated; `;` on Windows).",
    "SEMLITH_EMBED_THREADS": "Chunks the embedding model embeds at once while indexing, "
    "one thread each (default: 2, or 1 on a one-CPU machine; up to 4; queries always use "
    "1). See docs/performance.md, \"Indexing\".",
    "SEMLITH_MODELS": "Folder for built and downloaded embedding models (default "
    "`SEMLITH_HOME/models`); share one between homes to build each model once.",
    "SEMLITH_PORT": "Port of the daemon on 127.0.0.1 (default 7365; `serve --port` wins).",
    "SEMLITH_CLIP_WEIGHTS": "CLIP weights for image search: OpenAI's ViT-B-32 file, or an "
    "open_clip `local-dir` folder (default: what `semlith models --download clip-vit-b-32` "
    "fetched). See docs/images.md.",
    "SEMLITH_MILVUS_TOKEN": "Credentials for a Milvus backend (`user:password` or an API "
    "key), read when a Milvus-backed store connects; never written to a store, a log or an "
    "error. See docs/scale-out.md.",
    "SEMLITH_MCP_SESSION_IDLE": "Seconds after which the daemon forgets an MCP session that "
    "has had no request (default 1800). A client that vanished without ending its session "
    "is held this long; `semlith mcp` opens a new session by itself when its own expired.",
    "SEMLITH_DAEMON_DEADLINE": "Seconds a client of the daemon (`semlith mcp`, the CLI) "
    "waits on a daemon that answers nothing, not even its health check (stopped, frozen, "
    "or a program that took its port), before it answers the call with an error (default "
    "30). A daemon busy with a long call still answers its health check, and the call "
    "waits for it.",
    "SEMLITH_MCP_SESSIONS": "MCP sessions the daemon keeps at most (default 256; each "
    "costs ~36 KB). A new session beyond them ends the one idle the longest (its client, "
    "if still there, opens a new one); only when every session has a call in flight is "
    "a new one refused (HTTP 503).",
    "SEMLITH_VECTOR_CACHE_MB": "Disk bound in MB of the vector cache in "
    "`SEMLITH_HOME/vectors/` (default 512, about 250,000 chunks of a 384-wide model): "
    "every store and run looks there before embedding, so a second clone, a worktree or a "
    "branch switched back embeds only what is new. Least recently used entries go first; "
    "`0` turns the cache off. See docs/architecture.md, \"The vector cache\".",
    "SEMLITH_MCP_TOOLS": "`all` lists every MCP tool in tools/list; by default it lists "
    "the tools agents use most (search, brief, read, symbol, neighbors, impact) and "
    "answers the others (files, stats, index, forget, path, outline) when called by name.",
    "SEMLITH_RANKING": "Ranking weights as `name=value,...` (`0` or `off` turns a signal "
    "off), e.g. `priors=off`; the names and defaults are in docs/ranking.md.",
}


def _env_int(env: Mapping[str, str], name: str) -> int | None:
    """A positive whole number from the environment, or None when unset."""
    raw = env.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {raw!r}") from None
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {raw!r}")
    return value


def _env_seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """A positive number of seconds from the environment, or `default`."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, got {raw!r}") from None
    if not 0 < value < float("inf"):
        raise ValueError(f"{name} must be positive, got {raw!r}")
    return value


def _env_size(env: Mapping[str, str], name: str, default: int) -> int:
    """A whole number >= 0 from the environment (0 turns a feature off), or `default`."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise ValueError(f"{name} must be a whole number of MB (0 turns it off), got {raw!r}")
    return int(raw)


def _env_tools(env: Mapping[str, str]) -> str:
    raw = env.get("SEMLITH_MCP_TOOLS", "").strip().lower() or "default"
    if raw not in ("default", "all"):
        raise ValueError(f"SEMLITH_MCP_TOOLS must be `all` or `default`, got {raw!r}")
    return raw


def _env_port(env: Mapping[str, str]) -> int:
    raw = env.get("SEMLITH_PORT", "").strip()
    if not raw:
        return 7365
    if not raw.isdigit() or not 0 <= int(raw) <= 65535:
        raise ValueError(f"SEMLITH_PORT must be a port number (0-65535), got {raw!r}")
    return int(raw)


@dataclass(frozen=True, slots=True)
class Settings:
    """Resolved configuration. Build with `Settings.load()`; tests pass `env=`."""

    home: Path = field(default_factory=lambda: Path.home() / ".semlith")
    index_memory_mb: int = 512
    perf: bool = True
    stores: tuple[Path, ...] = ()
    embed_threads: int | None = None
    port: int = 7365
    ranking: Weights = field(default_factory=Weights)
    models: Path | None = None  # None: home / "models"
    clip_weights: Path | None = None  # None: the downloaded file, if any (docs/images.md)
    session_idle_s: int = 1800
    mcp_sessions: int = 256  # at most, the least recently used idle one evicted
    daemon_deadline_s: float = 30.0  # a silent daemon's clients give up after this
    vector_cache_mb: int = 512  # 0: off
    mcp_tools: str = "default"  # or "all": which tools tools/list shows

    @property
    def models_dir(self) -> Path:
        """Where built recipe models and fastembed downloads live."""
        return self.models if self.models is not None else self.home / "models"

    @classmethod
    def load(cls, env: Mapping[str, str] | None = None, **flags: Any) -> Settings:
        """Resolve settings from `flags` (None means "not given"), then `env`, then defaults."""
        env = os.environ if env is None else env
        home_raw = env.get("SEMLITH_HOME", "").strip()
        models_raw = env.get("SEMLITH_MODELS", "").strip()
        clip_raw = env.get("SEMLITH_CLIP_WEIGHTS", "").strip()
        settings = cls(
            home=Path(home_raw).expanduser() if home_raw else Path.home() / ".semlith",
            index_memory_mb=_env_int(env, "SEMLITH_INDEX_MEMORY") or 512,
            perf=env.get("SEMLITH_PERF", "on").strip().lower() not in {"off", "0", "false", "no"},
            stores=tuple(Path(p).expanduser() for p in env.get("SEMLITH_STORE", "").split(
                os.pathsep) if p.strip()),
            embed_threads=_env_int(env, "SEMLITH_EMBED_THREADS"),
            port=_env_port(env),
            ranking=Weights.parse(env.get("SEMLITH_RANKING", "")),
            models=Path(models_raw).expanduser() if models_raw else None,
            clip_weights=Path(clip_raw).expanduser() if clip_raw else None,
            session_idle_s=_env_int(env, "SEMLITH_MCP_SESSION_IDLE") or 1800,
            mcp_sessions=_env_int(env, "SEMLITH_MCP_SESSIONS") or 256,
            daemon_deadline_s=_env_seconds(env, "SEMLITH_DAEMON_DEADLINE", 30.0),
            vector_cache_mb=_env_size(env, "SEMLITH_VECTOR_CACHE_MB", 512),
            mcp_tools=_env_tools(env),
        )
        given = {name: value for name, value in flags.items() if value is not None}
        return replace(settings, **given) if given else settings
