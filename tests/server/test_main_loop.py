"""The daemon's main loop sleeps until told to stop; where the event loop cannot watch a
socket (Windows' proactor loop), it looks for a stop once a second instead."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import uvicorn

from semlith.server import daemon


class _NoReaders(asyncio.SelectorEventLoop):
    """An event loop without `add_reader`, as Windows' default loop is."""

    def add_reader(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError


async def _app(scope: Any, receive: Any, send: Any) -> None:  # never called
    raise AssertionError


def _stops_when_told(factory: Any) -> float:
    server = daemon._Server(uvicorn.Config(_app, log_level="warning"))

    async def run() -> None:
        asyncio.get_running_loop().call_later(0.05, server.request_exit)
        await server.main_loop()

    started = time.monotonic()
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(run())
    return time.monotonic() - started


def test_a_loop_that_cannot_watch_a_socket_says_so() -> None:
    loop = _NoReaders()
    try:
        with daemon._signal_wakeup(loop) as woken:
            assert woken is False
    finally:
        loop.close()


def test_the_main_loop_stops_when_told_with_and_without_a_signal_wakeup() -> None:
    assert _stops_when_told(asyncio.SelectorEventLoop) < 1.0  # woken at once
    assert _stops_when_told(_NoReaders) < 3.0  # at its next look, within a second
