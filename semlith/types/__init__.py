"""The values the library takes and returns, shared by every adapter (CLI, MCP, /api).

Each is a frozen, slotted dataclass whose `as_json()` is its wire form (`from_json`
rebuilds it), so the CLI, the MCP tools and `/api` cannot drift apart. No I/O here.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar, cast

from semlith.types.skips import why_skipped

T = TypeVar("T")


def counted(n: int, noun: str) -> str:
    """'1 file', '2 files', '0 files': a count and its noun, plural unless n is 1."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def from_json(cls: type[T], data: dict[str, Any]) -> T:
    """Rebuild a value type from its `as_json()` (unknown keys are ignored, so an older
    client reads a newer daemon's answers)."""
    known = {f.name for f in fields(cast(Any, cls))}
    return cls(**{k: _tuples(v) for k, v in data.items() if k in known})


def _tuples(value: Any) -> Any:
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


class Value:
    """Base of the value types: `as_json()` is the dataclass's fields."""

    __slots__ = ()

    def as_json(self) -> dict[str, Any]:
        return asdict(cast(Any, self))


@dataclass(frozen=True, slots=True)
class Scope(Value):
    """Which stores a request addresses.

    `stores` holds store names, store folders (`.semlith`), project folders (a store's
    root or any folder inside one), or "*" for every store. Empty: the stores around
    `near` — the folders the caller works in (the CLI's current folder, an editor's MCP
    roots) — and every store when none covers them.
    """

    stores: tuple[str, ...] = ()
    near: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Filters(Value):
    """Path globs, extensions, languages; each may start with `!` to exclude."""

    paths: tuple[str, ...] = ()
    exts: tuple[str, ...] = ()
    langs: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.paths or self.exts or self.langs)

    def describe(self) -> str:
        parts = [f"--path {p}" for p in self.paths] + [f"--ext {e}" for e in self.exts]
        return " ".join(parts + [f"--lang {lang}" for lang in self.langs])


class Located(Value):
    """A result at `path:start-end` (a search hit, a definition)."""

    __slots__ = ()
    store: str
    path: str
    start_line: int
    end_line: int

    @property
    def locator(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"

    @property
    def store_locator(self) -> str:
        """`store:path:start-end`, the form that names the store as well."""
        return f"{self.store}:{self.locator}"


@dataclass(frozen=True, slots=True)
class Hit(Located):
    """One search result. `as_json()` is the documented `search --json` contract."""

    store: str
    path: str
    start_line: int
    end_line: int
    score: float
    text: str
    symbol: str
    kind: str
    relevance: float | None = None  # 0-1, for people (ranking/relevance.py); not ranked by
    line: int = 0  # the line it is shown by (types/shown.py); 0 from an older daemon
    changed: bool = False  # its file changed on disk since it was indexed (issue #45)
    definition: tuple[int, int] = (0, 0)  # its definition's lines, if larger (search/whole.py)
    found: tuple[int, int] = (0, 0)  # its chunk's, when it shows the whole definition


@dataclass(frozen=True, slots=True)
class Answer(Value):
    """What a search found, which stores it searched, a note when the scope was not the
    one asked for (no store covers the caller's folder: every store was searched), and
    one line per store that failed and was left out ("name: why")."""

    hits: tuple[Hit, ...]
    stores: tuple[str, ...]
    note: str = ""
    failed: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"hits": [h.as_json() for h in self.hits], "stores": list(self.stores),
                "note": self.note, "failed": list(self.failed)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Answer:
        return cls(tuple(from_json(Hit, h) for h in data["hits"]), tuple(data["stores"]),
                   str(data.get("note", "")), tuple(data.get("failed", ())))

    @property
    def notes(self) -> list[str]:
        """Every line a reader should see beside the hits."""
        return reply_notes(self.note, self.failed)


def reply_notes(note: str, failed: tuple[str, ...]) -> list[str]:
    """The lines a reader sees beside a search's or a grep's answer: the note on its
    scope, then one line per store that failed ("name: why") and was not searched."""
    return ([note] if note else []) + [f"store {line} (not searched)" for line in failed]


@dataclass(frozen=True, slots=True)
class Definition(Located):
    """One definition: what `symbol` answers, and what a corpus finds by name.

    `as_json()` is the `symbol --json` schema: the eight fields without `chunk_id` (the
    chunk holding the definition, which only search needs). `store` is "" until the
    store's label is known (a corpus answers for itself; the library labels).
    """

    store: str
    path: str
    start_line: int
    end_line: int
    kind: str
    name: str
    qualname: str
    signature: str
    chunk_id: int | None = None
    # `symbol` fills these for the definition it lists first: its settled one-hop calls,
    # `qualname path:line` of the call site (callers) or of the definition (callees).
    callers: tuple[str, ...] = ()
    callees: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        data = Value.as_json(self)
        del data["chunk_id"]
        return data


@dataclass(frozen=True, slots=True)
class ChunkPlace:
    """Where a chunk is: all the ranking reads of a candidate. Its text is read only for
    the hits a search returns (reading it for every candidate was a third of the
    catalog's share of a query, docs/performance.md)."""

    id: int
    path: str
    start_line: int
    end_line: int
    # `test`: test code kept in a source file (ingest/plan.py); `generated`: a chunk of a
    # small generated file (cutting.py). Both weigh by `roles.KIND_ROLES`.
    kind: str = ""


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """A chunk as a reader gets it back, with its file's path."""

    id: int
    path: str
    ordinal: int
    start_line: int
    end_line: int
    kind: str
    symbol: str
    text: str


@dataclass(frozen=True, slots=True)
class Passage(Located):
    """Lines of an indexed file, as indexed: the extracted text for documents (PDF,
    notebooks, Office...), the file's own lines otherwise. Secrets are redacted."""

    store: str
    path: str
    start_line: int
    end_line: int
    lines: tuple[str, ...]
    total_lines: int
    changed: bool = False  # the file changed on disk since it was indexed
    extracted: bool = False  # the lines are text extracted from a document
    symbol: str = ""  # the definition the target named, when it was a symbol
    image: str = ""  # an image file's downscaled copy, base64, when asked for
    image_mime: str = ""  # its type: image/png or image/jpeg


@dataclass(frozen=True, slots=True)
class FileEntry(Value):
    store: str
    path: str
    size: int
    lang: str
    state: str  # "indexed" or "pending"
    redacted: int = 0  # credential-shaped strings replaced by a marker (ingest/secrets.py)


@dataclass(frozen=True, slots=True)
class SkipEntry(Value):
    store: str
    path: str
    reason: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class StoreEntry(Value):
    """A registered store (`semlith stores`)."""

    name: str
    folder: str
    root: str
    model: str
    exists: bool = True
    served: bool = False  # by the running daemon


@dataclass(frozen=True, slots=True)
class StoreStats(Value):
    """What `stats` shows for one store."""

    name: str
    folder: str
    root: str
    model: str
    dim: int
    format_version: int
    generation: int
    files: int
    pending_files: int
    chunks: int
    symbols: int
    exact_records: int
    pending_chunks: int = 0  # of pending files: keyword-searchable, not yet embedded
    chunked_by: dict[str, int] = field(default_factory=dict)
    shards: dict[str, Any] = field(default_factory=dict)
    recovered: dict[str, int] = field(default_factory=dict)
    indexing: bool = False
    watch: dict[str, Any] | None = None  # the daemon's watcher state, when it serves it
    served_by: int = 0  # the pid of the daemon serving it, 0 when none
    withheld: dict[str, int] | None = None  # secret files skipped, strings redacted
    spaces: dict[str, Any] = field(default_factory=dict)  # name -> model, dim, vectors
    backend: str = "local"  # or the Milvus target (docs/scale-out.md)
    # chunks of this store whose vectors came from the machine-wide vector cache, and
    # those the model embedded, over every run that counted them
    from_cache: int = 0
    embedded: int = 0
    # the machine-wide cache: folder, entries, bytes, max_bytes, models, errors (absent
    # when it is off)
    vector_cache: dict[str, Any] | None = None
    error: str = ""  # why it could not be counted (the counts are then 0; issue #47)

    @property
    def watch_line(self) -> str:
        """One line for `stats`: how the root is watched, what is pending, the last
        batch ("" when no daemon watches it)."""
        state = self.watch
        if not state:
            return ""
        when = (time.strftime("%H:%M:%S", time.localtime(state["last_batch_at"]))
                if state.get("last_batch_at") else "never")
        line = (f"watch: {state['mode']}, {state['pending']} pending, last batch {when}"
                + (f": {state['last_batch']}" if state.get("last_batch") else ""))
        if state.get("last_error"):
            line += f"; last error: {state['last_error']}"
        return line


@dataclass(slots=True)
class IndexReport(Value):
    """What an index run did, for the summary line and for `semlith_index`."""

    indexed: int = 0  # files (re)chunked and embedded
    unchanged: int = 0
    skipped: int = 0
    skip_reasons: dict[str, int] = field(default_factory=dict)  # reason -> files
    removed: int = 0
    moved: int = 0  # renamed without embedding
    copied: int = 0  # a copy of an indexed file, given its chunks without embedding
    interrupted: bool = False  # the previous run stopped before it finished
    resumed: int = 0  # files that run had finished already
    chunks: int = 0  # chunks given vectors (embedded, or found in the vector cache)
    cached: int = 0  # of `chunks`, those whose vectors came from the vector cache
    pending: int = 0  # files left for the next run (time budget reached)
    rechunked: int = 0  # unchanged files cut again: their language's chunking changed
    rechecked: int = 0  # unchanged files redone: the secret rules now change them
    truncated: list[str] = field(default_factory=list)
    verified: dict[str, int] = field(default_factory=dict)  # `--verify`: Store.verify()
    seconds: float = 0.0
    store: str = ""  # the store's name
    created: bool = False  # the run created the store
    renamed_from: str = ""  # the name it would have had, taken by `name_taken_by`
    name_taken_by: str = ""  # the folder of the store that has that name
    by_daemon: int = 0  # the pid of the daemon that ran it, 0 when run here

    @property
    def complete(self) -> bool:
        return self.pending == 0

    def summary(self) -> str:
        parts = [f"{self.indexed} indexed", f"{self.unchanged} unchanged",
                 f"{self.skipped} skipped{why_skipped(self.skip_reasons)}",
                 f"{self.removed} removed"]
        parts += [f"{self.moved} moved"] if self.moved else []
        parts += [f"{self.copied} copied"] if self.copied else []
        cached = f", {self.cached} from the vector cache" if self.cached else ""
        line = ", ".join(parts) + f" ({counted(self.chunks, 'chunk')}{cached}) in " \
            f"{self.seconds:.1f} s"
        if self.rechunked:
            line += (f"; re-chunked {counted(self.rechunked, 'unchanged file')} (their "
                     "language is chunked differently now)")
        if self.rechecked:
            line += (f"; redid {counted(self.rechecked, 'unchanged file')} that the secret "
                     "rules now withhold or redact")
        if self.interrupted:
            line += (f"; resumed an interrupted run ({counted(self.resumed, 'file')} "
                     f"{'was' if self.resumed == 1 else 'were'} already done)")
        if self.pending:
            line += f"; {counted(self.pending, 'file')} still to do (run again to continue)"
        if self.verified:
            line += "; verified: " + ", ".join(
                f"{key.replace('_', ' ')} {n}" for key, n in self.verified.items())
        return line


@dataclass(frozen=True, slots=True)
class Progress(Value):
    """One step of a run, for a progress display (semlith/cli/output.py renders them).

    Phases: "scan" (walking: `files_seen` looked at, `files_total` changed so far),
    "model" (loading the embedding model), "embed" (`files_done` of `files_total` cut,
    `chunks_done` of about `chunks_total` embedded), "done".
    """

    phase: str
    files_done: int
    files_total: int
    chunks_done: int
    chunks_per_s: float  # a moving rate over the last embedding calls; 0.0 before one
    eta_s: float | None  # None until the rate is known
    path: str = ""
    files_seen: int = 0
    chunks_total: int = 0  # an estimate from the files cut so far; 0 until one is cut


@dataclass(frozen=True, slots=True)
class Watched(Value):
    """How a `watch` ended: run here until stopped, or handed to the daemon at once."""

    store: str
    root: str
    by_daemon: int = 0  # the daemon's pid when it watches the store (it watches all it holds)
    batches: int = 0


@dataclass(frozen=True, slots=True)
class Status(Value):
    """The running daemon: where, since when, what it serves."""

    version: str
    pid: int
    port: int
    uptime_s: float
    model_ready: bool
    model_error: str | None
    models_loaded: tuple[str, ...]
    searches: int
    stores: dict[str, dict[str, Any]]  # name -> folder, root, model, indexing, watch
    not_served: dict[str, str]  # store folder -> why
