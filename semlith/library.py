"""The one face of semlith: every operation the CLI, the MCP tools and `/api` offer.

`Library` is a Protocol with two implementations:

- `semlith.local.LocalLibrary` works in this process — the daemon (over the stores it
  holds), the stdio proxy's fallback, and the CLI when no daemon runs;
- `semlith.remote.RemoteLibrary` asks the running daemon over its JSON API (`/api/*`),
  which is itself a `LocalLibrary` behind thin routes.

Adapters parse their input, call one method, and format the result; they import only
this module, `semlith.types` and `semlith.errors`. This module is the protocol only and
imports nothing but the value types: `semlith.connect.open_library` is how an adapter
gets an implementation (the daemon's when one runs, else a local one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from threading import Event
from typing import Any, Protocol

from semlith.types import (
    Answer,
    Definition,
    FileEntry,
    Filters,
    IndexReport,
    Passage,
    Progress,
    Scope,
    SkipEntry,
    Status,
    StoreEntry,
    StoreStats,
    Watched,
)
from semlith.types.activity import Agents, Run
from semlith.types.graph import Brief, GraphPath, Impact, Neighbors
from semlith.types.grep import Matches
from semlith.types.info import FormatEntry, LanguageEntry, ModelEntry

MAX_K = 10_000  # SQLite binds 64-bit integers; a larger k only wastes memory
OnProgress = Callable[[Progress], None]
OnSkip = Callable[[str, str, str], None]  # (path, reason, detail)
OnEvent = Callable[[str], None]  # one line for a person: what a watcher did
# name -> a text model (`semlith.embed.text.Embedder`); tests pass a deterministic one
EmbedderFactory = Callable[[str], Any]


class Library(Protocol):
    """Every operation on stores. Errors are `SemlithError`s (or `ValueError` for a bad
    argument) whose message is one sentence a person or an agent can act on."""

    def search(self, query: str, *, k: int = 10, filters: Filters = Filters(),
               scope: Scope = Scope(), image: str | None = None) -> Answer:
        """The top `k` hits for `query`; the hits of k are a prefix of those of k + n.

        With `image` (a path: for an agent inside an indexed root, for a person any
        readable image file), the image spaces are searched by that image instead
        (image -> image; `query` may then be empty). Image hits are one-line locators
        whose `kind` is "image". Raises BadTarget for an image that cannot be read,
        ModelError when the image model cannot load.
        """
        ...

    def grep(self, pattern: str, *, regex: bool = False, context: int = 0,
             before: int | None = None, after: int | None = None, limit: int = 100,
             files_only: bool = False, count: bool = False, filters: Filters = Filters(),
             scope: Scope = Scope()) -> Matches:
        """The lines of the indexed files that contain `pattern` (a literal, or a Python
        regex with `regex`), as `read` serves them: withheld files are not searched,
        redacted text stays redacted. At most `limit` lines (`files_only` or `count`:
        files, with their counts of matching lines and no lines), each with `before`
        and `after` lines of context (`context` either side, as ripgrep's -C under -B
        and -A), the innermost definition around it, and a count of the rest. A regex
        runs in linear time; one RE2 cannot run (a backreference, lookaround) is refused
        (ValueError). A search stops 10 s after the call arrived, waiting for other greps
        included, and says so in `note`; Busy when too many greps wait already
        (semlith/local/grep.py)."""
        ...

    def symbol(self, name: str, *, scope: Scope = Scope(), limit: int = 50
               ) -> list[Definition]:
        """Every definition of `name` (`name`, `Type.method`, `Type::method`), best first:
        the exact qualified name, then qualified suffixes, then the rest; tests last."""
        ...

    def read(self, target: str, *, scope: Scope = Scope(), max_lines: int = 400,
             include_image: bool = False) -> Passage:
        """Lines of an indexed file: any locator a tool prints (`path:start-end`,
        `store:path:start-end`, `path:line`, `path`, an absolute path inside a root)
        or a symbol name. An image file gives one line of metadata (dimensions, format,
        bytes) and, with `include_image`, a downscaled copy in `Passage.image` (longest
        side <= 512 px, <= 256 KB, PNG or JPEG)."""
        ...

    def outline(self, target: str, *, scope: Scope = Scope()) -> list[Definition]:
        """The definitions of one indexed file in source order (lines, kind, qualified
        name, signature): a map of the file before reading it. `target` is a file's path
        or any locator a tool printed (its lines are ignored); BadTarget when it is not
        an indexed file of the scope's stores."""
        ...

    def neighbors(self, name: str, *, kinds: Sequence[str] = (), filters: Filters = Filters(),
                  all_edges: bool = False, budget: int = 4000, scope: Scope = Scope()
                  ) -> Neighbors:
        """Callers and callees of the definition `name` means (`kinds`: calls, imports,
        inherits, contains; default all), each edge with its status. `filters` choose
        among definitions of one name; ambiguous callees are one row each with their
        count unless `all_edges`. At most `budget` tokens (x4 characters of JSON), with
        what was left out in `omitted`. UnknownSymbol names the nearest real names."""
        ...

    def impact(self, name: str, *, depth: int = 3, filters: Filters = Filters(),
               all_edges: bool = False, budget: int = 4000, scope: Scope = Scope()
               ) -> Impact:
        """What reaches `name` backwards over calls, up to `depth` hops, fewest first,
        each with its call site; settled edges only unless `all_edges`."""
        ...

    def path(self, source: str, target: str, *, filters: Filters = Filters(),
             all_edges: bool = False, budget: int = 4000, scope: Scope = Scope()
             ) -> GraphPath:
        """The shortest chain of calls from `source` to `target` over settled edges; it
        never crosses an ambiguous call (`blocked` names the one it refused) unless
        `all_edges`, and then the answer is a `hypothesis`."""
        ...

    def brief(self, question: str, *, budget: int = 2000, scope: Scope = Scope()) -> Brief:
        """One answer within `budget` tokens: the best locators of a search for
        `question`, the one-hop callers and callees of the definition the best hit is
        in, and that hit's text, trimmed last."""
        ...

    def files(self, *, scope: Scope = Scope()) -> list[FileEntry]:
        ...

    def skipped(self, *, scope: Scope = Scope()) -> list[SkipEntry]:
        ...

    def stats(self, *, scope: Scope = Scope()) -> list[StoreStats]:
        ...

    def stores(self) -> list[StoreEntry]:
        """The registered stores, and whether the daemon serves each."""
        ...

    def index(self, paths: Sequence[str] = (), *, store: str | None = None,
              model: str | None = None, backend: str | None = None,
              time_budget: float | None = None, on_progress: OnProgress | None = None,
              on_skip: OnSkip | None = None, allow_system: bool = False,
              verify: bool = False) -> IndexReport:
        """Bring a store up to date with `paths` (absolute; default: the current folder),
        creating it beside the first path when none exists there. `model` and `backend`
        (a Milvus target, docs/scale-out.md) are chosen when a store is created and kept;
        naming others for an existing store is an error. A new store for a system or home
        folder is refused (RefusedFolder) unless `allow_system` (semlith/base/folders.py).
        `verify` first checks the store's vectors against its catalog and repairs them
        (a Milvus store: its rows), reported in `IndexReport.verified`."""
        ...

    def attach(self, backend: str) -> StoreEntry:
        """Register a read-only mirror of a repo that another machine indexes into Milvus
        (`milvus://HOST:PORT/COLLECTION?repo=NAME`): searched like any store, never
        indexed here. The running daemon serves it within a second."""
        ...

    def forget(self, path: str, *, store: str | None = None) -> int:
        """Remove a file or folder from the index (not from disk); files removed."""
        ...

    def watch(self, paths: Sequence[str] = (), *, store: str | None = None,
              debounce: float = 0.5, on_event: OnEvent | None = None,
              stop: Event | None = None) -> Watched:
        """Keep a store current: in the foreground until `stop` is set (or Ctrl-C), or,
        when the daemon runs, by the daemon (it watches every store it holds; this
        returns at once)."""
        ...

    def status(self) -> Status:
        """The running daemon; `DaemonNotRunning` when there is none."""
        ...

    def runs(self) -> list[Run]:
        """Index runs in progress (with their latest progress), then each store's last
        finished run: the runs of the daemon (any caller's, and its watcher's) when one
        runs, else of this process."""
        ...

    def stop_run(self, store: str) -> bool:
        """Ask the run in progress on `store` to stop after the file it is on (the files
        done stay committed; the next run does the rest). False when none runs."""
        ...

    def agents(self) -> Agents:
        """How agents connect: the MCP endpoint, where the agent key is kept and how to
        rotate it (never the key itself), and the MCP clients configured here."""
        ...

    def models(self) -> list[ModelEntry]:
        """The embedding models this installation can use, and their state."""
        ...

    def fetch_model(self, name: str, *, build: bool = False) -> str:
        """Build recipe model `name` from its installed package (`build`, offline) or
        download it (needs network); one line saying what was done."""
        ...

    def languages(self) -> list[LanguageEntry]:
        ...

    def formats(self) -> list[FormatEntry]:
        ...

    def close(self) -> None:
        ...
