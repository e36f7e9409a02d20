"""Merge one entry into a client's config file and leave everything else as it was.

JSON files are edited as text, not re-serialised: clients' files are often JSONC (Zed's
settings.json starts with comments and VS Code's mcp.json allows them), and a person's
comments, formatting and key order are theirs. Each edit inserts or replaces one member
and is then checked: the edited text must parse to exactly the original data with the
entry merged in, or nothing is written. TOML (Codex) gets the same treatment with one
`[table]`, and YAML (goose, Continue) with one block (semlith/setup/yamlfile.py). Writes
are atomic (temp file + rename); the first change keeps a backup of the original beside
the file.
"""

from __future__ import annotations

import codecs
import copy
import json
import os
import re
import shutil
import tomllib
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from semlith.setup import jsonc, yamlfile

BACKUP_SUFFIX = ".semlith-backup"
Config = dict[str, Any]


class Syntax(StrEnum):
    JSON = "json"
    TOML = "toml"
    YAML = "yaml"


class Outcome(StrEnum):
    CREATED = "created"  # the file did not exist
    ADDED = "added"  # the file existed without the entry
    UPDATED = "updated"  # the entry existed with other values
    UNCHANGED = "unchanged"  # the entry is already there as given


@dataclass(frozen=True, slots=True)
class Written:
    path: Path
    outcome: Outcome
    backup: Path | None  # the original as it was before semlith first changed it


def render(config: Config, syntax: Syntax) -> str:
    """The config as a person would paste it into an empty file."""
    if syntax is Syntax.TOML:
        return "\n".join(_toml_tables([], config)) + "\n"
    if syntax is Syntax.YAML:
        return yamlfile.dumps(config)
    return jsonc.dumps(config) + "\n"


def merged(data: Config, config: Config) -> Config:
    """`data` with each member of `config` set: a table's entries replace those of the
    same name, a list's items replace those of the same `id` (or `name`) or are put
    first. A member with no value (`extensions:` alone, in YAML) counts as empty."""
    out = copy.deepcopy(data)
    for key, value in config.items():
        if key in out and out[key] is None:
            del out[key]
        if isinstance(value, dict):
            table = out.setdefault(key, {})
            if not isinstance(table, dict):
                raise ValueError(f"{key!r} holds a {type(table).__name__} where the "
                                 "servers' table belongs")
            table.update(copy.deepcopy(value))
        else:
            items = out.setdefault(key, [])
            if not isinstance(items, list):
                raise ValueError(f"{key!r} holds a {type(items).__name__}, not a list")
            for item in value:
                same = [i for i, old in enumerate(items) if _id(old) == _id(item)]
                if same:
                    items[same[-1]] = copy.deepcopy(item)
                else:
                    items.insert(0, copy.deepcopy(item))
    return out


def merge_into(path: Path, config: Config, syntax: Syntax, new_file: Config | None = None
               ) -> Written:
    """Merge `config` into the file at `path`, creating it (and its folders) if needed;
    a new file starts with `new_file`'s members (what the client requires of one).

    Raises ValueError, naming the file, when it cannot be read or parsed, holds something
    other than a table where the entry goes, or cannot be edited without touching other
    content; the file is then left exactly as it was.
    """
    real = Path(os.path.realpath(path))  # a symlinked dotfile stays a symlink
    backup = real.with_name(real.name + BACKUP_SUFFIX)
    try:
        raw = real.read_bytes()
    except FileNotFoundError:
        _write_atomic(real, render({**(new_file or {}), **config}, syntax).encode())
        return Written(path, Outcome.CREATED, None)
    except OSError as exc:
        raise ValueError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    text, bom, crlf = _decode(raw, path)
    data = _parse(text, syntax, path)
    try:
        want = merged(data, config)
    except ValueError as exc:
        raise ValueError(f"{str(path)!r}: {exc}; fix it by hand") from None
    if want == data:
        return Written(path, Outcome.UNCHANGED, backup if backup.exists() else None)
    edited = (_edit_toml(text, config) if syntax is Syntax.TOML else
              yamlfile.edit(text, config, _id) if syntax is Syntax.YAML else
              _edit_json(text, config))
    if not _parses_to(edited, syntax, want):
        raise ValueError(f"{str(path)!r} cannot be edited without touching its other "
                         "content; add semlith's entry by hand (`semlith setup` without "
                         "--write prints it)")
    _keep_backup(real, backup)
    if crlf:
        edited = edited.replace("\n", "\r\n")
    _write_atomic(real, (codecs.BOM_UTF8 if bom else b"") + edited.encode())
    outcome = Outcome.UPDATED if _has_entry(data, config) else Outcome.ADDED
    return Written(path, outcome, backup)


def _id(item: object) -> object:
    """A list item's identity: VS Code's inputs have an `id`, Continue's servers a `name`."""
    return item.get("id", item.get("name")) if isinstance(item, dict) else item


def _has_entry(data: Config, config: Config) -> bool:
    """Whether `data` already names one of `config`'s entries (so a merge updates it)."""
    def names(value: object) -> set[object]:
        if isinstance(value, dict):
            return set(value)
        return {_id(item) for item in value} if isinstance(value, list) else set()

    return any(names(value) & names(data.get(key)) for key, value in config.items())


def _decode(raw: bytes, path: Path) -> tuple[str, bool, bool]:
    """Text with LF line ends, whether it had a BOM, whether its lines ended in CRLF."""
    bom = raw.startswith(codecs.BOM_UTF8)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{str(path)!r} is not UTF-8 text; semlith will not rewrite "
                         "it") from None
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    return (text.replace("\r\n", "\n") if crlf else text), bom, crlf


def _parses_to(text: str, syntax: Syntax, want: Config) -> bool:
    try:
        return _parse(text, syntax, Path()) == want
    except ValueError:
        return False


def parse(text: str, syntax: Syntax, path: Path) -> Config:
    """A config file's text as data; ValueError (naming `path`) when it does not parse."""
    return _parse(text, syntax, path)


def _parse(text: str, syntax: Syntax, path: Path) -> Config:
    if not text.strip():
        return {}  # an empty file is an empty config (`touch` made it)
    try:
        data = (tomllib.loads(text) if syntax is Syntax.TOML else
                yamlfile.loads(text) if syntax is Syntax.YAML else jsonc.loads(text))
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{str(path)!r} is not valid {syntax.value.upper()} ({exc}); "
                         "fix it or move it aside: semlith will not overwrite it") from None
    if data is None and syntax is Syntax.YAML:
        return {}  # comments only
    if not isinstance(data, dict):
        raise ValueError(f"{str(path)!r} holds a {syntax.value.upper()} "
                         f"{type(data).__name__}, not a table; semlith will not overwrite it")
    return data


def _edit_json(text: str, config: Config) -> str:
    if not text.strip():
        return render(config, Syntax.JSON)
    for key, value in config.items():
        if isinstance(value, dict):
            for name, entry in value.items():
                text = jsonc.set_member(text, [key], name, entry)
        else:
            for item in value:
                text = jsonc.put_item(text, key, item, _id)
    return text


def _edit_toml(text: str, config: Config) -> str:
    """Replace or append each `[key.name]` table (with its own subtables)."""
    for key, tables in config.items():
        for name, entry in tables.items():
            block = "\n".join(_toml_tables([key, name], entry)) + "\n"
            prefix = rf"^[ \t]*\[[ \t]*{re.escape(key)}[ \t]*\.[ \t]*\"?{re.escape(name)}\"?"
            own = list(re.finditer(prefix + r"[ \t]*\][ \t]*(#.*)?$", text, re.M))
            if not own:
                sep = "" if not text.strip() else "\n" if text.endswith("\n") else "\n\n"
                text = text + sep + block
                continue
            start, end = own[-1].start(), len(text)
            for header in re.finditer(r"^[ \t]*\[", text[own[-1].end():], re.M):
                at = own[-1].end() + header.start()
                if not re.match(prefix + r"[ \t]*\.", text[at:]):  # not our subtable
                    end = _before_trailing_comments(text, at)
                    break
            text = text[:start] + block + text[end:]
    return text


def _before_trailing_comments(text: str, at: int) -> int:
    """Back from a table header over the blank and comment lines that introduce it."""
    lines = text[:at].split("\n")[:-1]
    while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return len("\n".join(lines)) + 1 if lines else 0


def _toml_tables(path: list[str], table: Config) -> list[str]:
    subtables = {k: v for k, v in table.items() if isinstance(v, dict)}
    values = [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in table.items()
              if k not in subtables]
    # A table holding only tables needs no header of its own: `[a.b]` implies `[a]`.
    header = path and (values or not subtables)
    lines = [f"[{'.'.join(_toml_key(p) for p in path)}]", *values] if header else values
    for name, sub in subtables.items():
        lines += ([""] if lines else []) + _toml_tables([*path, name], sub)
    return lines


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _toml_value(value: object) -> str:
    # A JSON string is a TOML basic string: the same quotes and escapes.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def _keep_backup(real: Path, backup: Path) -> None:
    """Copy the file aside before semlith's first change; later changes keep that copy."""
    if backup.exists():
        return
    try:
        shutil.copy2(real, backup)
    except OSError as exc:
        raise ValueError(f"cannot back up {str(real)!r} as {str(backup)!r}: "
                         f"{exc.strerror or exc}; nothing was changed") from None


def _write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` via a temp file and rename, keeping the file's mode."""
    tmp = path.with_name(f".{path.name}.semlith-{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if path.exists():
            shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ValueError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
