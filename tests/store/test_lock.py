"""One writer per store: a second writer fails at once, naming the holder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.errors import StoreLocked
from semlith.store import Store

HOLD = """
import sys, time
from pathlib import Path
from semlith.base.settings import Settings
from semlith.store import Store
s = Store.open(Path(sys.argv[1]), settings=Settings.load(), writable=True,
               command="semlith index ~/src/app")
print("held", flush=True)
time.sleep(120)
"""


def test_second_writer_is_refused_with_holder_named(make_store: Callable[..., Store],
                                                    settings: Settings) -> None:
    store = make_store()
    store.close()
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(store.folder)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with pytest.raises(StoreLocked) as info:
            Store.open(store.folder, settings=settings, writable=True)
        assert time.monotonic() - started < 5  # at once, not after a wait
        message = str(info.value)
        assert f"pid {holder.pid}" in message
        assert "semlith index ~/src/app" in message
        assert f"started {time.strftime('%Y-%m-%d')}" in message
        # Readers never need the lock.
        Store.open(store.folder, settings=settings).close()
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()
    # The OS released the dead holder's lock: the next writer gets it.
    Store.open(store.folder, settings=settings, writable=True).close()


def test_lock_is_released_on_close(make_store: Callable[..., Store],
                                   settings: Settings, tmp_path: Path) -> None:
    store = make_store()
    store.close()
    for _ in range(3):
        Store.open(store.folder, settings=settings, writable=True).close()
    assert (store.folder / "index.lock").read_text() == ""
