"""The values of an exact or regex search (`Library.grep`), as `semlith.types` shapes its
others: frozen, slotted, `as_json()` their wire form (issue #23)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from semlith.base.names import escape_name
from semlith.types import Value, counted, from_json, reply_notes


@dataclass(frozen=True, slots=True)
class Enclosing(Value):
    """The innermost definition (or Markdown section) whose lines cover a match: its kind
    (`function`, `method`, `class`, `section`...), qualified name and lines."""

    kind: str
    name: str
    start_line: int
    end_line: int

    @property
    def label(self) -> str:
        return f"{self.kind} {self.name}"


@dataclass(frozen=True, slots=True)
class Match(Value):
    """One matching line at `path:line`, with up to `context` lines either side, the
    definition it is in (None outside any, or when the file changed since it was
    indexed), and where the pattern matches in it (`[start, end)` character offsets)."""

    store: str
    path: str
    line: int
    text: str
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    definition: Enclosing | None = None
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def locator(self) -> str:
        return f"{self.path}:{self.line}"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Match:
        inside = data.get("definition")
        match = from_json(cls, {k: v for k, v in data.items() if k != "definition"})
        return replace(match, definition=from_json(Enclosing, inside) if inside else None)


@dataclass(frozen=True, slots=True)
class Matches(Value):
    """The matching lines in file order (at most the limit asked for; `files` lists the
    files shown, as `store:path`, and `counts` their matching lines, in the same order),
    how many matches and files the limit left out, the stores searched, a note on the
    scope, and one line per store not searched."""

    matches: tuple[Match, ...]
    files: tuple[str, ...]
    more_matches: int = 0
    more_files: int = 0
    stores: tuple[str, ...] = ()
    note: str = ""
    failed: tuple[str, ...] = ()
    counts: tuple[int, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"matches": [m.as_json() for m in self.matches], "files": list(self.files),
                "more_matches": self.more_matches, "more_files": self.more_files,
                "stores": list(self.stores), "note": self.note, "failed": list(self.failed),
                "counts": dict(zip(self.files, self.counts, strict=True))}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Matches:
        counts = data.get("counts", {})
        return cls(tuple(Match.from_json(m) for m in data["matches"]), tuple(data["files"]),
                   int(data.get("more_matches", 0)), int(data.get("more_files", 0)),
                   tuple(data.get("stores", ())), str(data.get("note", "")),
                   tuple(data.get("failed", ())),
                   tuple(int(counts[f]) for f in data["files"]) if counts else ())

    @property
    def more(self) -> str:
        """'N more matches in M files' when the limit left some out, else ''."""
        if not self.more_matches:
            return ""
        matches = "1 more match" if self.more_matches == 1 else \
            f"{self.more_matches} more matches"
        return f"{matches} in {counted(self.more_files, 'file')}"

    @property
    def notes(self) -> list[str]:
        return reply_notes(self.note, self.failed)


@dataclass(frozen=True, slots=True)
class Row:
    """One line of grep's text output. `role` is "match" (`path:N:text`), "context"
    (`path-N-text`), "definition" (`path=N=kind name`: the definition starting at line N
    that holds the matches below it, as `git grep -p` marks its function lines) or
    "break" (`--` between runs of lines that do not touch, only when context was asked
    for, as ripgrep prints it). `where` is the path as printed: escaped (base/names.py),
    so a name holding a newline or a bidi control cannot forge or disguise a line."""

    role: str
    where: str = ""
    line: int = 0
    text: str = ""
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def separator(self) -> str:
        return {"match": ":", "context": "-", "definition": "="}.get(self.role, "")

    def plain(self, width: int | None = None) -> str:
        if self.role == "break":
            return "--"
        sep = self.separator
        return f"{self.where}{sep}{self.line}{sep}{self.text[:width]}"


def rows(matches: tuple[Match, ...], *, multi_store: bool, definitions: bool = True,
         context: bool | None = None) -> list[Row]:
    """ripgrep's lines (`rg -n --no-heading`), grouped by file, with several stores the
    path as `store:path` (which `read` takes back); with `definitions`, a definition row
    before the run of lines holding the first match of each definition in a file.
    `context`: whether context lines were asked for, which puts `--` between runs that
    do not touch, in a file and between files (None: whether any match has some)."""
    if context is None:
        context = any(m.before or m.after for m in matches)
    out: list[Row] = []
    files: dict[tuple[str, str], dict[int, tuple[str, Match | None]]] = {}
    for m in matches:
        lines = files.setdefault((m.store, m.path), {})
        for n, text in [*enumerate(m.before, m.line - len(m.before)),
                        *enumerate(m.after, m.line + 1)]:
            lines.setdefault(n, (text, None))
        lines[m.line] = (m.text, m)
    for (store, path), lines in files.items():
        where = escape_name((f"{store}:" if multi_store else "") + path)
        last, labelled, shown, start = 0, None, False, len(out)
        for n in sorted(lines):
            text, hit = lines[n]
            if context and out and (n > last + 1 or not last):
                out.append(Row("break"))
                start, shown = len(out), False
            inside = hit.definition if hit is not None and definitions else None
            if inside is not None and inside != labelled:
                row = Row("definition", where, inside.start_line, escape_name(inside.label))
                out.insert(start if not shown else len(out), row)
                labelled = inside
            shown = shown or hit is not None
            out.append(Row("match" if hit else "context", where, n, text,
                           hit.spans if hit else ()))
            last = n
    return out
