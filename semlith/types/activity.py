"""The values of what the daemon is doing and who may reach it: index runs (`Run`,
`Library.runs`) and how agents connect (`Agents`, `ClientEntry`, `Library.agents`).

Value types like those of `semlith.types` (frozen, slotted, `as_json()` their wire form
on `/api`), kept apart so that each module stays one concept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from semlith.types import Value, from_json


@dataclass(frozen=True, slots=True)
class Run(Value):
    """An index run the library knows of: in progress ("running"), or the last one of a
    store, finished ("done"), stopped early ("stopped", files left for the next run) or
    failed ("failed", `summary` says why). `by`: who started it (index, watch, portal).
    The progress fields are the run's latest `Progress`; `eta_s` is None until the
    embedding rate is known."""

    store: str
    root: str
    state: str
    by: str
    started: float  # Unix time
    finished: float | None = None
    phase: str = "scan"
    files_done: int = 0
    files_total: int = 0
    chunks_done: int = 0
    chunks_total: int = 0
    chunks_per_s: float = 0.0
    eta_s: float | None = None
    path: str = ""
    summary: str = ""


@dataclass(frozen=True, slots=True)
class ClientEntry(Value):
    """One MCP client `semlith setup` knows, and whether its user config names semlith."""

    name: str
    title: str
    config: str  # its user config file on this machine
    configured: bool


@dataclass(frozen=True, slots=True)
class Agents(Value):
    """How agents reach the daemon: the MCP endpoint, where the key lives (never the
    key), how to rotate it, and the clients configured on this machine."""

    endpoint: str
    key_file: str
    rotate: str
    clients: tuple[ClientEntry, ...]

    def as_json(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "key_file": self.key_file, "rotate": self.rotate,
                "clients": [c.as_json() for c in self.clients]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Agents:
        return cls(str(data["endpoint"]), str(data["key_file"]), str(data["rotate"]),
                   tuple(from_json(ClientEntry, c) for c in data.get("clients", ())))
