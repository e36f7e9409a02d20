"""`semlith stop` returns only once the daemon's process is gone (#23)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import psutil
import pytest

from semlith.base.home import pid_alive
from tests.daemon_util import indexed_sample, semlith, start_daemon, wait_model


def test_a_process_whose_status_cannot_be_read_is_alive(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    class Exiting(psutil.Process):
        def status(self) -> str:  # macOS, for a process that is shutting down
            raise psutil.AccessDenied(self.pid)

    monkeypatch.setattr(psutil, "Process", Exiting)
    assert pid_alive(os.getpid())


def test_a_gone_or_zombie_process_is_not_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    class Zombie(psutil.Process):
        def status(self) -> str:
            raise psutil.ZombieProcess(self.pid)

    assert pid_alive(os.getpid())
    monkeypatch.setattr(psutil, "Process", Zombie)
    assert not pid_alive(os.getpid())


@pytest.mark.slow
@pytest.mark.model
def test_stop_returns_once_the_daemon_has_exited(tmp_path: Path) -> None:
    home = tmp_path / "home"
    indexed_sample(tmp_path, home)
    daemon = start_daemon(home)  # watching, model loaded: the slowest shutdown
    wait_model(daemon)
    done = semlith(home, "stop")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"stopped the daemon (pid {daemon.proc.pid})"
    assert daemon.proc.poll() == 0  # exited, and exited cleanly, before stop returned
    assert not (home / "daemon.json").exists()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", daemon.port), 1):
        pass
    again = semlith(home, "stop")
    assert again.returncode == 0 and again.stdout.strip() == "no semlith daemon is running"
