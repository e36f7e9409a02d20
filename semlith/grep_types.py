"""The values of an exact or regex search (`Library.grep`), as `semlith.types` shapes its
others: frozen, slotted, `as_json()` their wire form (issue #23)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from semlith.types import Value, counted, from_json


@dataclass(frozen=True, slots=True)
class Match(Value):
    """One matching line at `path:line`, with up to `context` lines either side."""

    store: str
    path: str
    line: int
    text: str
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()

    @property
    def locator(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Matches(Value):
    """The matching lines in file order (at most the limit asked for; `files` lists every
    file with a match, as `store:path`), how many matches and files the limit left out,
    the stores searched, a note on the scope, and one line per store not searched."""

    matches: tuple[Match, ...]
    files: tuple[str, ...]
    more_matches: int = 0
    more_files: int = 0
    stores: tuple[str, ...] = ()
    note: str = ""
    failed: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"matches": [m.as_json() for m in self.matches], "files": list(self.files),
                "more_matches": self.more_matches, "more_files": self.more_files,
                "stores": list(self.stores), "note": self.note, "failed": list(self.failed)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Matches:
        return cls(tuple(from_json(Match, m) for m in data["matches"]), tuple(data["files"]),
                   int(data.get("more_matches", 0)), int(data.get("more_files", 0)),
                   tuple(data.get("stores", ())), str(data.get("note", "")),
                   tuple(data.get("failed", ())))

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
        return ([self.note] if self.note else []) + [
            f"store {line} (not searched)" for line in self.failed]


def grouped(matches: tuple[Match, ...], *, multi_store: bool, width: int | None = None
            ) -> list[str]:
    """ripgrep's lines, grouped by file: `path:line:text` for a match, `path-line-text`
    for context, `--` between runs that do not touch, a blank line between files; with
    several stores the path is `store:path` (which `read` takes back)."""
    return [line for line, _ in marked(matches, multi_store=multi_store, width=width)]


def marked(matches: tuple[Match, ...], *, multi_store: bool, width: int | None = None
           ) -> list[tuple[str, bool]]:
    """`grouped`'s lines, each with whether it is a matching line."""
    out: list[tuple[str, bool]] = []
    files: dict[tuple[str, str], dict[int, tuple[str, bool]]] = {}
    for m in matches:
        lines = files.setdefault((m.store, m.path), {})
        for n, text in [*enumerate(m.before, m.line - len(m.before)),
                        *enumerate(m.after, m.line + 1)]:
            lines.setdefault(n, (text, False))
        lines[m.line] = (m.text, True)
    for (store, path), lines in files.items():
        if out:
            out.append(("", False))
        where, last = (f"{store}:" if multi_store else "") + path, 0
        runs = not all(hit for _, hit in lines.values())  # `--` only with context
        for n in sorted(lines):
            text, hit = lines[n]
            if runs and last and n > last + 1:
                out.append(("--", False))
            out.append((f"{where}{':' if hit else '-'}{n}{':' if hit else '-'}"
                        f"{text if width is None else text[:width]}", hit))
            last = n
    return out
