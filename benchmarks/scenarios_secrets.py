"""Redaction throughput: the secret rules over real text (no model)."""

from __future__ import annotations

import statistics
import sysconfig
import time
from pathlib import Path

from harness import Context, Result, scenario

from semlith.ingest.secrets import redact

# The text files a source tree is mostly made of; site-packages has all of them.
_SUFFIXES = (".py", ".pyi", ".md", ".rst", ".txt", ".json", ".toml", ".cfg", ".ini", ".yaml",
             ".yml", ".js", ".html", ".c", ".h")


def _corpus(megabytes: int) -> list[str]:
    """The first `megabytes` MB of text files under this Python's site-packages, in path
    order (the same files for the same installed packages)."""
    root = Path(sysconfig.get_paths()["purelib"])
    texts: list[str] = []
    total = 0
    for path in sorted(root.rglob("*")):
        if total >= megabytes << 20:
            break
        if path.suffix not in _SUFFIXES or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        texts.append(text)
        total += len(text.encode())
    return texts


@scenario("redact", sizes=[40], fast_sizes=[2])
def redact_text(ctx: Context, sizes: list[int]) -> Result:
    """Redaction MB/s over N MB of site-packages text (sizes = MB), and what it flagged."""
    redact("")  # the one-time import and compile of the rules is not throughput
    results: Result = {}
    for megabytes in sizes:
        texts = _corpus(megabytes)
        size = sum(len(text.encode()) for text in texts)
        runs: list[float] = []
        cpu: list[float] = []  # on a shared machine CPU time says more than the clock
        strings = files = 0
        for _ in range(1 if ctx.fast else 3):
            start, start_cpu = time.perf_counter(), time.process_time()
            counts = [redact(text).count for text in texts]
            runs.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
            strings, files = sum(counts), sum(1 for count in counts if count)
        seconds = statistics.median(runs)
        results[megabytes] = {"files": len(texts), "mb": round(size / 1e6, 1),
                              "seconds": round(seconds, 2),
                              "mb_per_s": round(size / seconds / 1e6, 2),
                              "cpu_mb_per_s": round(size / statistics.median(cpu) / 1e6, 2),
                              "redacted_strings": strings, "redacted_files": files}
        ctx.log(f"redact {megabytes} MB: {results[megabytes]}")
    return results
