"""The soak scenario: a working day of agent traffic against one daemon, compressed.

Each round is what a busy stretch of the day brings: a burst of 45 concurrent MCP calls
from fresh clients (searches, reads, symbol lookups, file lists and stats; some clients
end their session, some use the stateless revision, some vanish without a word), three
edits the watcher indexes, every fourth round an index run through the CLI's API, then
a pause longer than the 10 s after which the daemon's idle worker threads retire (the
pattern that leaked a SQLite connection per thread per store, issue #26). Descriptors,
threads and RSS of the daemon are read after every round, and once more after an idle
spell long enough for abandoned sessions to expire. Flat means the last rounds hold what
the first did.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from harness import Context, Metrics, Result, percentiles, scenario
from scenarios_daemon import MODERN, Daemon

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "sample"
BURST = 45
PAUSE_S = 11.0  # anyio retires a worker thread idle for 10 s
SESSION_IDLE_S = 30  # SEMLITH_MCP_SESSION_IDLE for the run: abandoned sessions expire
QUERIES = ["how does retry backoff work", "where are session tokens verified",
           "password hashing", "RetryPolicy", "parse the configuration file",
           "how are routes matched to handlers", "schema migrations", "open a socket",
           "join paths", "read a json file", "thread pool executor", "format a date"]


def _projects(workdir: Path, count: int) -> list[Path]:
    """`count` small projects: the sample plus a slice of the standard library each."""
    stdlib = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    roots = []
    for n in range(count):
        root = workdir / f"soak-{n}"
        if not (root / ".semlith" / "store.db").exists():
            shutil.rmtree(root, ignore_errors=True)
            shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
            (root / "lib").mkdir()
            for module in stdlib[n * 12:(n + 1) * 12]:
                text = module.read_text(errors="replace").splitlines()[:300]
                (root / "lib" / module.name).write_text("\n".join(text) + "\n")
        roots.append(root)
    return roots


def _index(home: Path, root: Path) -> None:
    env = {**os.environ, "SEMLITH_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "semlith", "index", str(root), "-q"],
                          env=env, capture_output=True, text=True, timeout=900)
    if done.returncode:
        raise RuntimeError(done.stderr)


class Traffic:
    """MCP calls of many short-lived clients; counts errors and call times."""

    def __init__(self, daemon: Daemon, roots: list[Path]) -> None:
        self.daemon = daemon
        self.roots = roots
        self.times: list[float] = []
        self.errors: list[str] = []
        self.calls = 0
        self.rng = random.Random(7)

    def _arguments(self, n: int) -> tuple[str, dict[str, Any]]:
        pick = self.rng.random()
        store = {"stores": [self.roots[n % len(self.roots)].name]}
        if pick < 0.6:
            return "semlith_search", {"query": self.rng.choice(QUERIES), **store}
        if pick < 0.75:
            return "semlith_read", {"target": "net/retry.py:1-12", **store}
        if pick < 0.85:
            return "semlith_symbol", {"name": "RetryPolicy", **store}
        if pick < 0.93:
            return "semlith_files", store
        return "semlith_stats", store

    def _session(self, client: httpx.Client, headers: dict[str, str]) -> dict[str, str]:
        init = client.post(self.daemon.url + "/mcp", headers=headers, json={
            "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "soak", "version": "0"}}})
        session = {**headers, "Mcp-Session-Id": init.headers["mcp-session-id"],
                   "MCP-Protocol-Version": "2025-11-25"}
        client.post(self.daemon.url + "/mcp", headers=session,
                    json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        return session

    def one(self, n: int) -> None:
        tool, arguments = self._arguments(n)
        kind = n % 4  # 0, 1: a session ended cleanly; 2: stateless; 3: abandoned
        headers = {**self.daemon.auth, "Accept": "application/json, text/event-stream"}
        start = time.perf_counter()
        try:
            with httpx.Client(timeout=120) as client:
                body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": tool, "arguments": arguments}}
                if kind == 2:
                    session = {**headers, "MCP-Protocol-Version": MODERN,
                               "Mcp-Method": "tools/call", "Mcp-Name": tool}
                    body["params"]["_meta"] = {  # type: ignore[index]
                        "io.modelcontextprotocol/protocolVersion": MODERN,
                        "io.modelcontextprotocol/clientCapabilities": {}}
                else:
                    session = self._session(client, headers)
                answer = client.post(self.daemon.url + "/mcp", headers=session, json=body)
                if answer.status_code != 200 or answer.json()["result"].get("isError"):
                    self.errors.append(f"{tool}: {answer.text[:160]}")
                if kind in (0, 1):
                    client.delete(self.daemon.url + "/mcp", headers=session)
        except (httpx.HTTPError, ValueError, KeyError) as exc:
            self.errors.append(f"{tool}: {exc!r}")
        self.times.append(time.perf_counter() - start)
        self.calls += 1

    def burst(self) -> None:
        base = self.calls
        with ThreadPoolExecutor(BURST) as pool:
            list(pool.map(self.one, range(base, base + BURST)))


def _edit(root: Path, n: int) -> None:
    """Three saves in one project: the watcher re-indexes them."""
    for module in sorted((root / "lib").glob("*.py"))[:3]:
        with module.open("a") as file:
            file.write(f"\n\ndef soak_edit_{n}():\n    return {n}\n")


def _reading(proc: Any) -> dict[str, float]:
    return {"fds": proc.num_fds() if hasattr(proc, "num_fds") else proc.num_handles(),
            "threads": proc.num_threads(), "rss_mb": round(proc.memory_info().rss / 2**20, 1)}


def _soak(ctx: Context, rounds: int, stores: int) -> Metrics:
    import psutil

    roots = _projects(ctx.workdir, stores)
    home = ctx.workdir / f"soak-home-{stores}"
    shutil.rmtree(home, ignore_errors=True)
    for root in roots:
        _index(home, root)
    daemon = Daemon([], env={"SEMLITH_HOME": str(home),
                             "SEMLITH_MCP_SESSION_IDLE": str(SESSION_IDLE_S)})
    proc = psutil.Process(daemon.proc.pid)
    traffic = Traffic(daemon, roots)
    readings: list[dict[str, float]] = []
    try:
        traffic.burst()  # warm-up: first loads of every store's shards and caches
        time.sleep(PAUSE_S)
        start = _reading(proc)
        for n in range(rounds):
            traffic.burst()
            _edit(roots[n % len(roots)], n)
            if n % 4 == 3:
                _index(home, roots[(n // 4) % len(roots)])
            time.sleep(PAUSE_S)
            readings.append(_reading(proc))
            ctx.log(f"soak round {n + 1}/{rounds}: {readings[-1]}, "
                    f"errors {len(traffic.errors)}")
        time.sleep(SESSION_IDLE_S + 15)  # abandoned sessions expire, threads retire
        traffic.one(0)  # a call lets anyio retire its idle workers
        rested = _reading(proc)
    finally:
        daemon.stop()
    last = readings[-max(1, rounds // 3):]
    peak = {k: max(r[k] for r in readings) for k in start}
    return {"rounds": rounds, "stores": stores, "calls": traffic.calls,
            "errors": len(traffic.errors), "first_error": (traffic.errors or [""])[0][:120],
            **percentiles(traffic.times),
            **{f"start_{k}": v for k, v in start.items()},
            **{f"peak_{k}": v for k, v in peak.items()},
            **{f"last_{k}": statistics.median(r[k] for r in last) for k in start},
            **{f"rested_{k}": v for k, v in rested.items()}}


@scenario("soak", sizes=[12], fast_sizes=[2], needs_model=True)
def soak(ctx: Context, sizes: list[int]) -> Result:
    """A day of agent traffic, edits and index runs, compressed (size: rounds): the
    daemon's descriptors, threads and RSS at the start, peak, last rounds and rested."""
    out: Result = {}
    for rounds in sizes:
        out[rounds] = _soak(ctx, rounds, stores=3)
        ctx.log("soak: " + json.dumps(out[rounds]))
    return out
