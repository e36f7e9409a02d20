"""Portal scenario: portal_render, each page drawn in headless Chromium from a real daemon.

The daemon (`semlith serve`, the shipped model) serves a synthetic store of real code
text; Chromium (the system's, through its chromedriver: tests/browser_util.py) opens the
portal with a fresh link. Per page: the time from asking for it (a hash change) to its
data drawn (`data-rendered`, set by the page's script), over repeated visits; the first
load (navigation start to the Stores page drawn); and a search from submit to its hits
drawn (`data-searched`). Goal: every page under 200 ms on a 10k-chunk store (issue #24).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import Context, Metrics, Result, scenario
from scenarios_daemon import QUERY, Daemon
from synth import build_store

from semlith.embed.text import DEFAULT_MODEL

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/ for the browser
from tests.browser_util import BROWSERS

PAGES = ("stores", "files", "search", "runs", "agents", "graph")


@scenario("portal_render", sizes=[10_000], fast_sizes=[1_000], needs_model=True)
def portal_render(ctx: Context, sizes: list[int]) -> Result:
    """Portal pages drawn in Chromium (ms, p50 and max over visits), first load, a search."""
    out: Result = {}
    if not (shutil.which("chromedriver") and any(map(shutil.which, BROWSERS))):
        ctx.log("portal_render: no Chromium with a chromedriver (python scripts/test-deps)")
        return {size: {"skipped": "no Chromium"} for size in sizes}
    for size in sizes:
        store = build_store(ctx.workdir, size, log=ctx.log, words=True, model=DEFAULT_MODEL)
        daemon = Daemon([store])
        try:
            out[size] = _measure(daemon, runs=3 if ctx.fast else 15)
        finally:
            daemon.stop()
        ctx.log(f"portal_render {size:,}: {out[size]}")
    return out


def _measure(daemon: Daemon, runs: int) -> Metrics:
    from semlith.base.home import portal_key
    from semlith.server.portal.session import link_token
    from tests.browser_util import start_chromium

    profile = tempfile.TemporaryDirectory(prefix="semlith-bench-chromium-")
    chrome = start_chromium(Path(profile.name))
    try:
        chrome.get(f"{daemon.url}/#token={link_token(portal_key(daemon.home))}")
        first = _until(chrome, "return document.body.dataset.page === 'stores' && "
                       "document.body.dataset.loaded")
        timing = chrome.execute_script(  # where the first load's time went
            "const n = performance.getEntriesByType('navigation')[0];"
            "return [n.responseEnd, n.domContentLoadedEventEnd];")
        metrics: Metrics = {"first_load_ms": round(float(first), 1),
                            "html_ms": round(timing[0], 1),
                            "script_ready_ms": round(timing[1], 1)}
        for page in PAGES:
            samples = [_visit(chrome, page) for _ in range(runs)]
            metrics[f"{page}_p50_ms"] = round(statistics.median(samples), 1)
            metrics[f"{page}_max_ms"] = round(max(samples), 1)
        _visit(chrome, "search")
        searched = [_search(chrome) for _ in range(runs)]
        metrics["query_p50_ms"] = round(statistics.median(searched), 1)
        metrics["query_max_ms"] = round(max(searched), 1)
        return metrics
    finally:
        chrome.quit()
        profile.cleanup()


def _visit(chrome: Any, page: str) -> float:
    chrome.execute_script(f"""delete document.body.dataset.rendered;
        if (location.hash === '#/{page}') route(); else location.hash = '#/{page}';""")
    return float(_until(chrome, f"return document.body.dataset.page === '{page}' && "
                        "document.body.dataset.rendered"))


def _search(chrome: Any) -> float:
    chrome.execute_script(f"""delete document.body.dataset.searched;
        document.getElementById('q').value = {QUERY!r};
        document.querySelector('form[role=search]').requestSubmit();""")
    return float(_until(chrome, "return document.body.dataset.searched"))


def _until(chrome: Any, script: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = chrome.execute_script(script)
        if value:
            return value
        time.sleep(0.01)
    raise RuntimeError(f"the portal did not answer in time: {script}")
