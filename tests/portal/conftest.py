"""The portal's browser tests' daemon, browser and screenshot folder (one of each per
test module).

The daemon is `semlith serve` with the deterministic test model (tests/hash_cli.py) on an
ephemeral loopback port, serving a copy of the sample project plus a withheld key, a
redacted token and a small call graph (every edge status), and a second store of notes.
Screenshots go to SEMLITH_PORTAL_SHOTS (default: a temp folder).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_util import browser_paths, start_chromium
from tests.daemon_util import SAMPLE, Daemon, env_for, start_daemon
from tests.portal.browsing import CANARY, TOKEN

HASH_CLI = ("-m", "tests.hash_cli")
DELAY = "0.02"  # seconds the daemon's test model spends per chunk: a run can be watched
# A call graph with every status: extracted (same file), resolved (imported from
# net/retry.py) and ambiguous (`codec.normalise`: two classes define it).
FLOW = """from net.retry import RetryPolicy, call_with_retry


def fetch_page(url):
    policy = RetryPolicy()
    return call_with_retry(lambda: download(url), policy)


def download(url, codec=None):
    return codec.normalise(url)


def sync_all(urls):
    return [fetch_page(u) for u in urls]


def main():
    sync_all(["a"])
"""
CODECS = """class Latin:
    def normalise(self, data):
        return data.lower()


class Utf:
    def normalise(self, data):
        return data.strip()
"""
NOTES = "# Retry notes\n\nUse `call_with_retry` with a `RetryPolicy`: the backoff doubles.\n"


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Daemon, Path]]:
    browser_paths()  # skip (or fail in CI) before starting anything
    tmp = tmp_path_factory.mktemp("portal-browser")
    root = tmp / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    (root / "deploy").mkdir()
    (root / "deploy" / "id_rsa").write_text(
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{CANARY}\n-----END OPENSSH PRIVATE KEY-----\n")
    (root / "net" / "config.py").write_text(f'GITHUB_TOKEN = "{TOKEN}"\nRETRIES = 3\n')
    (root / "net" / "__init__.py").write_text("")
    (root / "net" / "flow.py").write_text(FLOW)
    (root / "text").mkdir()
    (root / "text" / "codecs.py").write_text(CODECS)
    wiki = tmp / "wiki"  # a second store, for the Search page's store picker
    wiki.mkdir()
    (wiki / "retry.md").write_text(NOTES)
    home = tmp / "home"
    home.mkdir()
    for folder in (root, wiki):
        done = subprocess.run([sys.executable, *HASH_CLI, "0", "index", str(folder), "--quiet"],
                              env=env_for(home), capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    served = start_daemon(home, "--no-watch", command=(*HASH_CLI, DELAY))
    yield served, root
    assert served.stop() == 0


@pytest.fixture(scope="module")
def chrome(daemon: tuple[Daemon, Path], tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Any]:
    browser = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield browser
    browser.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("SEMLITH_PORTAL_SHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder
