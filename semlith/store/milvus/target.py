"""Where a Milvus-backed store's rows live, and its filters as Milvus expressions.

`MilvusTarget` is a parsed `--backend` URI (docs/scale-out.md lists the forms);
`milvus_filter` compiles `Filters` to the filter expression of one repo's rows, with
the same meaning as `semlith.store.query.Selection` has in SQL.

Targets (recorded in the store's meta without credentials; the token comes from
`SEMLITH_MILVUS_TOKEN`):

- `milvus://HOST:PORT[/COLLECTION][?repo=NAME&consistency=Bounded&index=HNSW]` (plain
  gRPC/HTTP), `milvus+https://...` for TLS;
- `milvus+lite:///ABSOLUTE/PATH.db[?collection=NAME&repo=NAME]`: the embedded engine
  (one process at a time).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import numpy as np

from semlith.base.languages import resolve_language
from semlith.errors import BackendError
from semlith.store.milvus.dirs import DEEP, dirs_key
from semlith.store.query import path_globs, split_negated
from semlith.types import Filters

TOKEN_ENV = "SEMLITH_MILVUS_TOKEN"
SCHEMES = ("milvus://", "milvus+https://", "milvus+lite://")
CONSISTENCY = ("Strong", "Bounded", "Session", "Eventually")
_NAME = re.compile(r"[^A-Za-z0-9_]")


@dataclass(frozen=True, slots=True)
class MilvusTarget:
    """Where a store's rows live: the client URI, collection, repo and read consistency."""

    scheme: str
    address: str  # host:port, or the lite database's absolute path
    collection: str = ""  # "" until the model names it (`semlith_<model>`)
    repo: str = ""  # "" until the store names it (its root folder's name)
    consistency: str = "Strong"
    index: str = "AUTOINDEX"  # the dense index a new collection gets

    @classmethod
    def parse(cls, text: str) -> MilvusTarget:
        """A target from `--backend`; BackendError names what is wrong."""
        if not text.startswith(SCHEMES):
            raise BackendError(f"unknown backend {text!r}: use milvus://HOST:PORT/COLLECTION"
                               " or milvus+lite:///PATH.db")
        parts = urlsplit(text)
        if parts.username or parts.password:
            raise BackendError(f"put credentials in {TOKEN_ENV}, not in the backend URI")
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        unknown = set(query) - {"collection", "repo", "consistency", "index"}
        if unknown:
            raise BackendError(f"unknown backend option(s): {', '.join(sorted(unknown))}")
        consistency = query.get("consistency", "Strong").capitalize()
        if consistency not in CONSISTENCY:
            raise BackendError(f"consistency must be one of {', '.join(CONSISTENCY)}")
        index = query.get("index", "AUTOINDEX").upper()
        if not re.fullmatch(r"[A-Z0-9_]+", index):
            raise BackendError(f"index {index!r}: a Milvus index type such as HNSW")
        if parts.scheme == "milvus+lite":
            path = Path(parts.path)
            if not parts.path or parts.netloc:
                raise BackendError("milvus+lite needs an absolute path: milvus+lite:///PATH.db")
            return cls(parts.scheme, str(path), query.get("collection", ""),
                       query.get("repo", ""), consistency, index)
        if not parts.hostname or not parts.port:
            raise BackendError(f"{text!r} needs a host and a port: milvus://HOST:PORT/NAME")
        collection = query.get("collection", parts.path.strip("/"))
        return cls(parts.scheme, f"{parts.hostname}:{parts.port}", collection,
                   query.get("repo", ""), consistency, index)

    def named(self, *, model: str, repo: str) -> MilvusTarget:
        """This target with its collection and repo filled in where the URI left them."""
        collection = self.collection or "semlith_" + _NAME.sub("_", model).lower()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,254}", collection):
            raise BackendError(f"collection name {collection!r}: letters, digits and _ only")
        return replace(self, collection=collection, repo=self.repo or repo)

    @property
    def uri(self) -> str:
        """What `pymilvus.MilvusClient` connects to."""
        if self.scheme == "milvus+lite":
            return self.address
        return ("https://" if self.scheme == "milvus+https" else "http://") + self.address

    def __str__(self) -> str:
        """The URI recorded in the store's meta: no credential in it."""
        options = {"repo": self.repo,
                   "consistency": "" if self.consistency == "Strong" else self.consistency,
                   "index": "" if self.index == "AUTOINDEX" else self.index}
        if self.scheme == "milvus+lite":
            options = {"collection": self.collection, **options}
            head = f"milvus+lite://{self.address}"
        else:
            head = f"{self.scheme}://{self.address}/{self.collection}"
        query = urlencode({k: v for k, v in options.items() if v})
        return f"{head}?{query}" if query else head


def literal(value: str | Sequence[str]) -> str:
    """A Milvus expression literal: a double-quoted string or a list of them. (Filter
    templates would be cleaner; the lite engine fails on lists and LIKE in them.)"""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in value) + "]"


def milvus_filter(repo: str, filters: Filters | None, *, dirs: bool = False,
                  deep: bool = True) -> str:
    """`filters` as a Milvus filter expression over this repo's rows.

    The same meaning as `semlith.store.query.Selection`: `--path` globs match anywhere
    unless anchored with `/`, folders match inside; `!` excludes. Glob `*` and `?` become
    LIKE's `%` and `_` (a literal `_` is escaped; a literal `%` stays a wildcard: the
    engine has no escape for it); a bracket class (`[ab]`) has no LIKE form and is
    refused. With `dirs` (the collection has the field: store/milvus_dirs.py) a literal
    pattern is an array lookup instead of a LIKE scan; `deep` (some row is too deep for
    the array) keeps the LIKE beside it for those rows, which costs the scan again.
    """
    clauses = [f"repo == {literal(repo)}"]
    if filters is None:
        return clauses[0]
    inc, exc = split_negated(filters.paths)
    for group, negate in ((inc, False), (exc, True)):
        if group:
            # `not array_contains(...)` is an "unsupported expr proto node" on milvus-lite
            # 2.5.1: an exclusion stays a LIKE.
            tests = [_path_test(p, dirs and not negate, deep) for p in group]
            clauses.append(f"{'not ' if negate else ''}({' or '.join(tests)})")
    inc, exc = split_negated(filters.exts)
    for group, op in ((inc, "in"), (exc, "not in")):
        if group:
            clauses.append(f"ext {op} {literal(['.' + e.lower().lstrip('.') for e in group])}")
    inc, exc = split_negated(filters.langs)
    for group, op in ((inc, "in"), (exc, "not in")):
        if group:
            clauses.append(f"lang {op} {literal([resolve_language(v).name for v in group])}")
    return " and ".join(clauses)


# A run of consecutive chunk ids costs milvus-lite 2.5.1 about as much as this many ids
# in a list: ~42 us a range in a balanced `or` against ~2.3 us a listed id (20,000 ids in
# 46 ms, as 1,000 ranges in 44 ms, as 10 ranges in 3.3 ms; docs/performance.md, "Runs of
# chunk ids"). A folder's chunks are mostly runs: one index run numbers a folder's files
# one after another.
RUN_IDS = 18


def among(allowlist: np.ndarray | None) -> str:
    """The clause that keeps the rows of `allowlist`'s chunk ids ('' for no list): runs of
    at least RUN_IDS consecutive ids as ranges, the other ids as one list."""
    if allowlist is None:
        return ""
    singles, runs = id_runs(np.asarray(allowlist, np.uint64), RUN_IDS)
    tests = [f"local_id in {singles}"] if singles or not runs else []
    tests += [f"(local_id >= {first} and local_id <= {last})" for first, last in runs]
    return f" and {_any(tests)}"


def id_runs(ids: np.ndarray, shortest: int) -> tuple[list[int], list[tuple[int, int]]]:
    """Sorted distinct `ids` as (the ids outside long runs, the runs of at least
    `shortest` consecutive ids as (first, last))."""
    ids = np.unique(ids).astype(np.int64)
    if not len(ids):
        return [], []
    starts = np.r_[0, np.flatnonzero(np.diff(ids) != 1) + 1]
    lengths = np.diff(np.r_[starts, len(ids)])
    long = lengths >= shortest
    runs = [(int(ids[a]), int(ids[a + n - 1])) for a, n in zip(starts[long], lengths[long],
                                                                strict=True)]
    return ids[~np.repeat(long, lengths)].tolist(), runs


def _any(tests: list[str]) -> str:
    """`tests` joined by `or` as a balanced tree: milvus-lite refuses a flat `or` of
    about 100 terms ("unsupported expr proto node")."""
    if len(tests) == 1:
        return tests[0]
    half = len(tests) // 2
    return f"({_any(tests[:half])} or {_any(tests[half:])})"


def _path_test(pattern: str, dirs: bool, deep: bool) -> str:
    """One `--path` as an expression: a `dirs` lookup when it can be one, else LIKEs."""
    likes = " or ".join(f"path like {literal(like_pattern(g))}" for g in path_globs(pattern))
    key = dirs_key(pattern) if dirs else None
    if key is None:
        return likes
    found = f"array_contains(dirs, {literal(key)})"
    # The engine evaluates both sides of an `or` on every row: the LIKE for deep rows
    # costs its scan again, so it is there only when the repo has such a row.
    return f"{found} or (array_contains(dirs, {literal(DEEP)}) and ({likes}))" if deep \
        else found


def like_pattern(glob: str) -> str:
    if "[" in glob:
        raise ValueError(f"--path {glob!r}: a Milvus store takes * and ? only, not [...]")
    out = glob.replace("\\", "\\\\").replace("_", "\\_")
    return out.replace("*", "%").replace("?", "_")
