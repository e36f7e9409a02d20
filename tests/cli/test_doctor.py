"""`semlith doctor` (#23): each fault it reports, with its fix, and a clean bill of health.

The CLI as people run it (click's runner, the deterministic test model); HOME and the
client folders point into tmp_path so no real client config is read.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from semlith.cli import Env, main
from semlith.errors import ModelError
from tests.conftest import HashEmbedder

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


@pytest.fixture(autouse=True)
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("home", "xdg", "appdata"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("APPDATA", str(tmp_path / "appdata"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return tmp_path / "home"


def doctor(*args: str, factory: Any = None) -> Result:
    env = Env(embedder_factory=factory or (lambda name: HashEmbedder(name)))
    return CliRunner().invoke(main, ["doctor", *args], obj=env)


def findings(*args: str, factory: Any = None) -> tuple[int, list[dict[str, Any]]]:
    result = doctor("--json", *args, factory=factory)
    return result.exit_code, json.loads(result.stdout)


def faults(found: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {f["check"]: f for f in found if not f["ok"]}


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("def alpha():\n    return 1\n")
    done = CliRunner().invoke(main, ["index", str(root), "--quiet"],
                              obj=Env(embedder_factory=lambda name: HashEmbedder(name)))
    assert done.exit_code == 0, done.output
    return root


def test_a_healthy_installation_has_no_faults(indexed: Path) -> None:
    code, found = findings()
    assert code == 0 and not faults(found), found
    checks = [f["check"] for f in found]
    assert checks[:3] == ["install", "model", "daemon"] and "store proj" in checks
    assert next(f for f in found if f["check"] == "store proj")["detail"] == "1 file, 1 chunk"
    text = doctor()
    assert text.exit_code == 0 and "FAULT" not in text.stdout
    assert text.stdout.splitlines()[0].startswith("ok     install              semlith ")


def test_a_model_that_does_not_load_is_a_fault() -> None:
    def broken(name: str) -> HashEmbedder:
        raise ModelError(f"model {name} is missing its weights\nsecond line")

    code, found = findings(factory=broken)
    fault = faults(found)["model"]
    assert code == 1 and fault["detail"].endswith("is missing its weights")
    assert fault["fix"] == "semlith models --build all-MiniLM-L6-v2-int8"
    text = doctor(factory=broken)
    assert text.exit_code == 1
    assert "fix: semlith models --build all-MiniLM-L6-v2-int8" in text.stdout


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _discovery(home: Path, port: int) -> None:
    (home / "daemon.json").write_text(json.dumps(
        {"pid": os.getpid(), "port": port, "version": "0.1.0", "started": 0.0}))


def test_a_daemon_that_does_not_answer_is_a_fault(semlith_home: Path) -> None:
    port = _free_port()
    _discovery(semlith_home, port)
    code, found = findings()
    fault = faults(found)["daemon"]
    assert code == 1 and fault["detail"] == f"pid {os.getpid()} does not answer on port {port}"
    assert fault["fix"] == f"stop process {os.getpid()}, then `semlith serve`"


@pytest.fixture
def old_daemon() -> Iterator[int]:
    class Healthz(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"ok": True, "version": "0.0.9"}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Healthz)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_a_daemon_of_another_version_is_a_fault(semlith_home: Path, old_daemon: int) -> None:
    _discovery(semlith_home, old_daemon)
    code, found = findings()
    fault = faults(found)["daemon"]
    assert code == 1 and "runs semlith 0.0.9, this is 0.1.0" in fault["detail"]
    assert fault["fix"] == "semlith stop && semlith serve"


@posix_only
def test_a_key_other_users_can_read_is_a_fault(semlith_home: Path) -> None:
    from semlith.base.home import agent_key

    agent_key(semlith_home)
    key = semlith_home / "agent.key"
    assert findings()[0] == 0
    key.chmod(0o644)
    code, found = findings()
    assert code == 1 and faults(found)["keys"]["fix"] == f"chmod 600 {key}"


def test_a_client_config_starting_another_semlith_is_a_fault(places: Path,
                                                             tmp_path: Path) -> None:
    other = tmp_path / "old" / "venv" / "bin" / "semlith"
    other.parent.mkdir(parents=True)
    other.write_text("#!/bin/sh\n")
    config = places / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"mcpServers": {"semlith": {
        "command": str(other), "args": ["mcp"]}}}))
    code, found = findings()
    fault = faults(found)["client cursor"]
    assert code == 1 and fault["detail"].startswith(f"{config} starts {other} mcp, a semlith "
                                                    "other than this one")
    assert fault["fix"] == "semlith setup cursor --write"
    assert CliRunner().invoke(main, ["setup", "cursor", "--write"]).exit_code == 0
    code, found = findings()
    assert code == 0 and any(f["check"] == "client cursor" and f["ok"] for f in found)


@pytest.mark.parametrize(("command", "fault"), [
    ("semlith", "names a bare `semlith`"),  # what setup wrote before #45
    ("/gone/venv/bin/semlith", "names /gone/venv/bin/semlith, which does not exist"),
])
def test_a_command_an_editor_may_not_start_is_a_fault(places: Path, command: str,
                                                      fault: str) -> None:
    config = places / ".gemini" / "settings.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"mcpServers": {"semlith": {"command": command,
                                                             "args": ["mcp"]}}}))
    code, found = findings()
    assert code == 1 and fault in faults(found)["client gemini"]["detail"]


def test_this_semlith_by_another_path_is_understood(places: Path, tmp_path: Path) -> None:
    from semlith.setup.launch import locate

    link = tmp_path / "links" / "semlith"  # pipx's ~/.local/bin link, say
    link.parent.mkdir()
    link.symlink_to(locate().command)
    goose = tmp_path / "xdg" / "goose" / "config.yaml"  # YAML, and `cmd` for the command
    goose.parent.mkdir(parents=True)
    goose.write_text(f"extensions:\n  semlith:\n    type: stdio\n    cmd: {link}\n"
                     "    args: [mcp]\n")
    code, found = findings()
    assert code == 0 and {"check": "client goose", "ok": True,
                          "detail": f"{goose} has semlith's entry", "fix": ""} in found


def test_a_client_config_that_does_not_parse_is_a_fault(places: Path) -> None:
    config = places / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text('{"mcpServers": {"semlith": ')
    code, found = findings()
    fault = faults(found)["client cursor"]
    assert code == 1 and "cannot be read" in fault["detail"]
    assert fault["fix"] == f"fix or move aside {config}, then `semlith setup cursor --write`"


def test_clients_without_semlith_are_not_mentioned(places: Path) -> None:
    (places / ".cursor").mkdir()
    (places / ".cursor" / "mcp.json").write_text('{"mcpServers": {"other": {}}}')
    code, found = findings()
    assert code == 0 and not any(f["check"].startswith("client") for f in found)


@posix_only
def test_a_store_open_to_other_users_is_a_fault(indexed: Path) -> None:
    folder = indexed / ".semlith"
    folder.chmod(0o755)
    code, found = findings()
    assert code == 1 and faults(found)["store proj"]["fix"] == f"chmod -R go-rwx {folder}"


def test_a_store_that_does_not_open_is_a_fault(indexed: Path) -> None:
    (indexed / ".semlith" / "store.db").write_bytes(b"not a database" * 100)
    code, found = findings()
    fault = faults(found)["store proj"]
    assert code == 1 and "does not open" in fault["detail"]
    assert fault["fix"] == f"rm -r {indexed / '.semlith'} && semlith index {indexed}"


def test_a_store_that_is_gone_is_a_fault(indexed: Path) -> None:
    import shutil

    shutil.rmtree(indexed / ".semlith")
    code, found = findings()
    assert code == 1 and faults(found)["store proj"]["fix"].startswith(
        f"semlith index {indexed}")


def test_a_full_disk_is_a_fault(indexed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    usage = shutil.disk_usage(indexed)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage._replace(free=50 << 20))
    code, found = findings()
    fault = faults(found)["store proj"]
    assert code == 1 and fault["detail"] == "50 MB free on its disk"


def test_a_missing_dependency_is_a_fault(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "watchdog", None)  # import raises ImportError
    code, found = findings()
    fault = faults(found)["install"]
    assert code == 1 and fault["detail"].endswith("cannot import watchdog")
    assert fault["fix"] == "pip install --force-reinstall semlith"
