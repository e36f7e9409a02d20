"""The daemon's memory by part, in one fresh process: `python benchmarks/memory_parts.py
STORE_FOLDER... [--arena off] [--one-session]` prints JSON lines {"step", "rss_mb",
"delta_mb"}.

Each step loads what the daemon loads, in the daemon's order, and is measured after
`malloc_trim` (what the daemon does once calls go quiet), so a delta is what that part
keeps: the web stack (Starlette, uvicorn, the MCP SDK), the rest of semlith, the
document model (onnxruntime session + tokenizer) and its first batches, the query model
(the daemon's second, one-thread session), the tree-sitter parsers and queries of every
language, and the stores (catalog, SQLite page cache, shards) with one search each.
Used by scenarios_memory.py; run alone to look at one part.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    folders = [Path(a) for a in sys.argv[1:] if not a.startswith("--")]
    one_session = "--one-session" in sys.argv
    proc = psutil.Process()
    last = [0.0]

    def step(name: str) -> None:
        from semlith.base.memory import trim

        trim()
        rss = proc.memory_info().rss / (1 << 20)
        print(json.dumps({"step": name, "rss_mb": round(rss, 1),
                          "delta_mb": round(rss - last[0], 1)}), flush=True)
        last[0] = rss

    import numpy  # noqa: F401  (every part needs it; counted with the interpreter)

    step("python, numpy, psutil")
    import semlith.server.app  # noqa: F401

    step("web stack (starlette, uvicorn, mcp) and semlith's server")
    from semlith.base.settings import Settings
    from semlith.embed.models import load_embedder
    from semlith.embed.text import DEFAULT_MODEL
    from semlith.local import Engine
    from semlith.search.searcher import Searcher
    from semlith.store import Store
    from semlith.types import Filters

    settings = Settings.load()
    step("the rest of semlith (library, search, store, ingest)")
    model = load_embedder(DEFAULT_MODEL, home=settings.home, models_dir=settings.models_dir,
                          threads=settings.embed_threads)
    step("document model: onnxruntime session + tokenizer, loaded")
    texts = [f"def handler_{i}(request):\n    return retry(request, {i})\n" * 8
             for i in range(32)]
    model.embed_documents(texts)
    step("document model: after embedding a batch of 32 chunks")
    if one_session:
        model.embed_query("how does retry backoff work")
    else:
        query = load_embedder(DEFAULT_MODEL, home=settings.home,
                              models_dir=settings.models_dir, threads=1)
        query.embed_query("how does retry backoff work")
    step("query model: " + ("the document model's session" if one_session
                            else "a second session (1 thread)") + ", one query")
    from semlith.base.languages import LANGUAGES
    from semlith.ingest.chunk import chunk_file

    for language in LANGUAGES:
        chunk_file("class A:\n    def f(self):\n        return 1\n" * 3, language)
    step(f"tree-sitter: parsers and queries of {len(LANGUAGES)} languages")
    engine = Engine(settings, lambda name: model)
    held = [Store.open(folder, settings=settings) for folder in folders]  # as the daemon
    step(f"{len(folders)} stores opened (catalog, shard listing)")
    for store in held:
        Searcher([(store.name, store)], engine.pool, settings.ranking, engine.executor
                 ).search("retry backoff handler", 10, Filters())
    step(f"{len(folders)} stores searched once (SQLite page cache, resident shards)")
    print(json.dumps({"pid": os.getpid(), "stores": len(held)}))


if __name__ == "__main__":
    main()
