"""Start the real daemon as a subprocess on an ephemeral loopback port, for tests."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "fixtures" / "sample"


@dataclass
class Daemon:
    proc: subprocess.Popen[bytes]
    home: Path
    port: int
    key: str  # the agent key, for /mcp
    control: str  # the control key, for /api

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def headers(self) -> dict[str, str]:
        """For /mcp."""
        return {"Authorization": f"Bearer {self.key}"}

    @property
    def api(self) -> dict[str, str]:
        """For /api."""
        return {"Authorization": f"Bearer {self.control}"}

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def serve_processes(home: Path) -> list[psutil.Process]:
    """`semlith serve` processes whose SEMLITH_HOME is `home` (the ones a proxy starts)."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            cmdline = proc.info["cmdline"] or []
            args = [a for a in cmdline[1:] if a != "-P"]  # the proxy starts it with -P
            if args[:3] == ["-m", "semlith", "serve"] and \
                    proc.environ().get("SEMLITH_HOME") == str(home):
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def interruptible() -> None:
    """`preexec_fn` for a child a test stops with SIGINT: a shell runs background jobs with
    SIGINT ignored, a child inherits that, and Python then installs no KeyboardInterrupt
    handler (the test would wait forever)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def env_for(home: Path) -> dict[str, str]:
    env = {**os.environ, "SEMLITH_HOME": str(home)}
    env.pop("SEMLITH_PORT", None)
    return env


def semlith(home: Path, *args: str, timeout: float = 300, cwd: Path | None = None,
            input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "semlith", *args], env=env_for(home),
                          capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          input=input)


def indexed_sample(tmp: Path, home: Path) -> Path:
    """A copy of fixtures/sample indexed (real model) and registered under `home`."""
    root = tmp / "sample"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    done = semlith(home, "index", str(root), "--quiet")
    assert done.returncode == 0, done.stderr
    return root


def start_daemon(home: Path, *args: str, timeout: float = 60,
                 preexec_fn: Callable[[], None] | None = None,
                 command: tuple[str, ...] = ("-m", "semlith")) -> Daemon:
    """`semlith serve --port 0 ARGS`; returns once /healthz answers (polling, no sleeps
    longer than a tenth of a second). `preexec_fn` runs in the child (a resource limit);
    `command`: how to run `semlith` (tests/hash_cli.py: with the test model)."""
    log = open(home / "test-daemon.log", "ab")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen([sys.executable, *command, "serve", "--port", "0", *args],
                            env=env_for(home), stdout=log, stderr=log,
                            preexec_fn=preexec_fn)
    log.close()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError("the daemon exited: "
                                 + (home / "test-daemon.log").read_text(errors="replace"))
        try:
            found = json.loads((home / "daemon.json").read_text())
            if found["pid"] == proc.pid and httpx.get(
                    f"http://127.0.0.1:{found['port']}/healthz", timeout=2).status_code == 200:
                key = (home / "agent.key").read_text().strip()
                control = (home / "control.key").read_text().strip()
                return Daemon(proc, home, int(found["port"]), key, control)
        except (OSError, ValueError, KeyError, httpx.HTTPError):
            pass
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("the daemon did not answer in time")


def wait_model(daemon: Daemon, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = httpx.get(daemon.url + "/api/status", headers=daemon.api, timeout=5).json()
        if status["model_ready"]:
            return
        time.sleep(0.1)
    raise AssertionError("the model did not load")


def served_sample(tmp: Path, *args: str) -> Iterator[tuple[Daemon, Path]]:
    """The body of a module fixture: an indexed sample served by a ready daemon (started
    with ARGS), stopped (and checked to exit 0) afterwards. Yields (daemon, root)."""
    home = tmp / "home"
    root = indexed_sample(tmp, home)
    daemon = start_daemon(home, *args)
    wait_model(daemon)
    yield daemon, root
    assert daemon.stop() == 0
