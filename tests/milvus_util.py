"""The real Milvus engine for tests: `milvus-lite`'s server on a free loopback port.

The milvus-lite wheel ships the C++ Milvus core as a program (`milvus_lite/lib/milvus`);
its own `milvus-lite server` command needs pymilvus's bulk-writer extras, so the program
is started directly, bound to 127.0.0.1, and stopped by its pid. The package is found,
not imported (its `__init__` warns about pkg_resources, an error under pytest).
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

START_TIMEOUT_S = 30.0


def milvus_program() -> Path:
    spec = importlib.util.find_spec("milvus_lite")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("milvus-lite is not installed: pip install '.[test]'")
    return Path(next(iter(spec.submodule_search_locations))) / "lib" / "milvus"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class MilvusServer:
    """One milvus-lite server process with its own data folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        return f"milvus://127.0.0.1:{self.port}"

    def start(self) -> MilvusServer:
        program = milvus_program()
        self.folder.mkdir(parents=True, exist_ok=True)
        lib = str(program.parent)
        env = {**os.environ, "LD_LIBRARY_PATH": lib, "DYLD_LIBRARY_PATH": lib}
        self.proc = subprocess.Popen(
            [str(program), str(self.folder / "milvus.db"), f"127.0.0.1:{self.port}", "ERROR"],
            env=env, cwd=self.folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"milvus-lite exited with {self.proc.returncode}")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"milvus-lite did not listen on {self.port} in {START_TIMEOUT_S}s")

    def kill(self) -> None:
        """The engine dies at once (`kill -9`): its port refuses connections. `start`
        brings it back on the same port and data folder."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)

    def pause(self, paused: bool = True) -> None:
        """Freeze (SIGSTOP) or thaw the engine. Frozen, its port still accepts
        connections and nothing answers: the engine behind a network that drops packets."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP if paused else signal.SIGCONT)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        if sys.platform != "win32":
            os.kill(proc.pid, signal.SIGCONT)  # a frozen engine cannot stop
        os.kill(proc.pid, signal.SIGTERM if sys.platform != "win32" else signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
