"""Python call sites and definitions by reference.py's line rules, with ``ast``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

Site = tuple[int, int, str]  # (line, character column, name) of a callee name


def definition_lines(path: Path) -> set[int]:
    """Lines of every ``def``, ``async def`` and ``class`` keyword in a file."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {node.lineno for node in ast.walk(tree) if isinstance(node, kinds)}


def call_sites(path: Path) -> Iterator[Site]:
    """``(line, column, name)`` of each call's callee name; column -1 when it has none."""
    source = path.read_bytes()
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            yield func.lineno, _chars(lines, func.lineno, func.col_offset), func.id
        elif isinstance(func, ast.Attribute):
            line, end = func.end_lineno or func.lineno, func.end_col_offset or 0
            start = end - len(func.attr.encode("utf-8"))
            yield line, _chars(lines, line, start), func.attr
        else:
            yield func.end_lineno or func.lineno, -1, ""


def _chars(lines: list[bytes], line: int, byte_offset: int) -> int:
    """``ast`` columns count UTF-8 bytes; jedi's count characters."""
    return len(lines[line - 1][:byte_offset].decode("utf-8", errors="replace"))
