"""The `dirs` field of a Milvus row: what a literal `--path` is looked up in (issue #25).

A `--path` that names folders or files without wildcards (`src/net`, `/docs`, `retry.py`)
matches a path when it is a run of the path's components: anywhere, or from the start
when anchored with `/` (store/query.py `path_globs`). As `path like "%/src/net/%"` that
is a scan of every row of the repo (843 ms at 1M rows on the lite engine); each row
therefore also carries every run of up to WINDOW components of its path, and `/` plus
each of its leading runs, so the same test is `array_contains(dirs, "src/net")`: an exact
match on an array the engine can index. A pattern of more than WINDOW components, or
with `*` or `?`, stays a LIKE. A path too deep for the array holds DEEP instead, and a
lookup also takes rows marked DEEP through the LIKE, so no row is ever missed.
"""

from __future__ import annotations

WINDOW = 4  # components per unanchored run: `a/b/c/d`
CAPACITY = 256  # entries per row (Milvus needs a fixed max_capacity for an ARRAY)
ENTRY_MAX = 4_096  # bytes per entry: a path's own limit
DEEP = "//"  # no run of a normalised path holds "//": a marker no lookup can equal


def path_dirs(path: str) -> list[str]:
    """The runs of `path`'s components a literal `--path` may equal ([DEEP] when they do
    not fit in CAPACITY entries)."""
    parts = [p for p in path.split("/") if p]
    runs = ["/" + "/".join(parts[:end]) for end in range(1, len(parts) + 1)]
    runs += ["/".join(parts[start:end]) for start in range(len(parts))
             for end in range(start + 1, min(len(parts), start + WINDOW) + 1)]
    unique = list(dict.fromkeys(runs))
    if len(unique) > CAPACITY or any(len(r.encode()) > ENTRY_MAX for r in unique):
        return [DEEP]
    return unique


def dirs_key(pattern: str) -> str | None:
    """The `dirs` entry a `--path` pattern is looked up by, or None when it needs a LIKE
    (wildcards, more than WINDOW components, nothing named)."""
    p = pattern.strip().replace("\\", "/")
    anchored = p.startswith("/")
    p = p.lstrip("/").removeprefix("./").rstrip("/")
    parts = p.split("/")
    if not p or any(ch in p for ch in "*?[") or "" in parts or "." in parts or ".." in parts:
        return None
    if anchored:
        return "/" + p
    return p if len(parts) <= WINDOW else None
