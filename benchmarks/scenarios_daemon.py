"""Daemon scenarios: mcp_call (HTTP and stdio proxy), idle, tools_list_bytes."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from harness import Context, Metrics, Result, rss_mb, scenario, timed
from synth import build_store

from semlith.embed.text import DEFAULT_MODEL

MODERN = "2026-07-28"
QUERY = "how does the retry handler work"


class Daemon:
    """`semlith serve --port 0` on stores, in a private SEMLITH_HOME."""

    def __init__(self, stores: list[Path], env: dict[str, str] | None = None) -> None:
        """`stores`: folders to serve (none: the registered ones); `env` over os.environ
        (a `SEMLITH_HOME` in it is used instead of a new private one)."""
        env = env or {}
        home = env.get("SEMLITH_HOME") or tempfile.mkdtemp(prefix="semlith-bench-home-")
        self.env = {**os.environ, **env, "SEMLITH_HOME": home}
        self.home = Path(home)
        self.log = open(self.home / "daemon.log", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "semlith", "serve", "--port", "0", *map(str, stores)],
            env=self.env, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                found = json.loads((self.home / "daemon.json").read_text())
                self.url = f"http://127.0.0.1:{found['port']}"
                self.key = (self.home / "agent.key").read_text().strip()
                self.control = (self.home / "control.key").read_text().strip()
                status = httpx.get(self.url + "/api/status", headers=self.api, timeout=5)
                if status.json().get("model_ready"):
                    return
            except (OSError, ValueError, KeyError, httpx.HTTPError):
                pass
            time.sleep(0.1)
        raise RuntimeError("the daemon did not become ready")

    @property
    def auth(self) -> dict[str, str]:
        """For /mcp: the agent key."""
        return {"Authorization": f"Bearer {self.key}"}

    @property
    def api(self) -> dict[str, str]:
        """For /api: the control key."""
        return {"Authorization": f"Bearer {self.control}"}

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        self.log.close()


def _modern_call(client: httpx.Client, url: str, tool: str, args: dict[str, Any],
                 n: int) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": tool, "arguments": args, "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {}}}}
    answer = client.post(url + "/mcp", json=body, headers={
        "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": tool,
        "Accept": "application/json, text/event-stream"})
    answer.raise_for_status()
    result: dict[str, Any] = answer.json()
    return result


class StdioProxy:
    """`semlith mcp` as an editor runs it, spoken to with newline-delimited JSON-RPC."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "semlith", "mcp"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.ids = itertools.count(1)
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        n = next(self.ids)
        self.send({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            message: dict[str, Any] = json.loads(self.proc.stdout.readline())
            if message.get("id") == n:
                return message

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)


def _calls(store: Path) -> Metrics:
    daemon = Daemon([store])
    try:
        args = {"query": QUERY, "k": 10}
        counter = itertools.count(1)
        with httpx.Client(headers=daemon.auth, timeout=60) as client:
            http = timed(lambda: _modern_call(client, daemon.url, "semlith_search", args,
                                              next(counter)), runs=100)
        proxy = StdioProxy(daemon.env)
        via = timed(lambda: proxy.request("tools/call", {"name": "semlith_search",
                                                         "arguments": args}), runs=100)
        proxy.close()
    finally:
        daemon.stop()
    return {"http_p50_ms": http["p50_ms"], "http_p95_ms": http["p95_ms"],
            "proxy_p50_ms": via["p50_ms"], "proxy_p95_ms": via["p95_ms"],
            "proxy_overhead_p50_ms": round(via["p50_ms"] - http["p50_ms"], 3)}


@scenario("mcp_call", sizes=[10_000], fast_sizes=[1_000], needs_model=True)
def mcp_call(ctx: Context, sizes: list[int]) -> Result:
    """tools/call semlith_search p50/p95 over HTTP and through the stdio proxy."""
    out: Result = {}
    for size in sizes:
        out[size] = _calls(build_store(ctx.workdir, size, log=ctx.log, words=True,
                                       model=DEFAULT_MODEL))
        ctx.log(f"mcp_call {size:,}: {out[size]}")
    return out


def _daemon_cpu_and_rss(daemon: Daemon, seconds: float) -> Metrics:
    import psutil

    proc = psutil.Process(daemon.proc.pid)
    before = proc.cpu_times()
    time.sleep(seconds)
    after = proc.cpu_times()
    cpu = (after.user - before.user) + (after.system - before.system)
    return {"idle_cpu_s": round(cpu, 4), "idle_seconds": seconds,
            "rss_mb": round(proc.memory_info().rss / (1 << 20), 1)}


@scenario("idle", sizes=[1, 3], fast_sizes=[1], needs_model=True)
def idle(ctx: Context, sizes: list[int]) -> Result:
    """Daemon CPU over an idle minute, and its RSS with the model and 1 or 3 stores."""
    from semlith.embed.models import build_model

    out: Result = {}
    seconds = 5.0 if ctx.fast else 60.0
    # Every Daemon has a fresh SEMLITH_HOME; without a built model it builds one at start
    # and keeps the build's memory (issue #25: 373 MB instead of 158 with one store). A
    # person's daemon builds it once ever, so the steady state is measured with a models
    # folder built beforehand, and the first start beside it.
    models = ctx.workdir / "models"
    build_model(DEFAULT_MODEL, ctx.workdir / "home", models_dir=models)
    for count in sizes:
        stores = [build_store(ctx.workdir / f"idle-{i}", 2_000, log=ctx.log, words=True,
                              model=DEFAULT_MODEL) for i in range(count)]
        for built, env in ((True, {"SEMLITH_MODELS": str(models)}), (False, {})):
            if not built and count != sizes[0]:
                continue
            daemon = Daemon(stores, env)
            try:
                with httpx.Client(headers=daemon.auth, timeout=60) as client:
                    _modern_call(client, daemon.url, "semlith_search", {"query": QUERY}, 1)
                time.sleep(1.0)  # let the first search's after-effects settle
                metrics = _daemon_cpu_and_rss(daemon, seconds if built else 5.0)
            finally:
                daemon.stop()
            if built:
                out[count] = metrics
            else:
                out[count]["first_start_rss_mb"] = metrics["rss_mb"]  # built the model
        ctx.log(f"idle with {count} store(s): {out[count]}")
    out[0] = {"bench_process_rss_mb": round(rss_mb(), 1)}
    return out


@scenario("tools_list_bytes", sizes=[1], fast_sizes=[1])
def tools_list_bytes(ctx: Context, sizes: list[int]) -> Result:
    """Size of tools/list (what every agent session pays): bytes and bytes/4 tokens."""
    import anyio

    from semlith.base.settings import Settings
    from semlith.local import LocalLibrary
    from semlith.server.mcp import build_mcp

    mcp = build_mcp(LocalLibrary(Settings.load(env={"SEMLITH_HOME": str(ctx.workdir)})))
    tools = anyio.run(mcp.list_tools)
    size = len(json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in tools]))
    return {1: {"bytes": size, "tokens": size // 4, "tools": len(tools)}}
