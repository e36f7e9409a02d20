"""Reading fixtures/graph/<language>/: every source file's edges, and the expectations
of its expected.json (records that must be found, and ones that must not)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from semlith.base.languages import language_of
from semlith.ingest.graph import FileEdges, extract_edges

GRAPH = Path(__file__).resolve().parent.parent.parent / "fixtures" / "graph"
KINDS = ("calls", "imports", "inherits", "contains", "locals")


def fixture_edges(language: str) -> dict[str, FileEdges]:
    """The edges of every source file of a fixture project, by path inside it."""
    root = GRAPH / language
    found = {}
    for path in sorted(root.rglob("*")):
        lang = language_of(path)
        if path.is_file() and lang is not None and lang.grammar is not None:
            found[path.relative_to(root).as_posix()] = extract_edges(path.read_text(), lang)
    return found


def expectations(language: str) -> dict[str, Any]:
    return dict(json.loads((GRAPH / language / "expected.json").read_text()))


def matching(edges: FileEdges, kind: str, wanted: dict[str, Any]) -> list[dict[str, Any]]:
    """The records of `kind` whose fields include every field of `wanted`."""
    rows = [asdict(record) for record in getattr(edges, kind)]
    return [row for row in rows if all(row.get(k) == v for k, v in wanted.items())]


def missing(found: dict[str, FileEdges], must: dict[str, Any]) -> list[str]:
    """The expected records not found, each as `file kind {fields}`."""
    out = []
    for file, kinds in must.items():
        if "package" in kinds and (file not in found or found[file].package != kinds["package"]):
            out.append(f"{file} package {kinds['package']!r}")
        for kind, records in kinds.items():
            if kind == "package":
                continue
            out += [f"{file} {kind} {wanted}" for wanted in records
                    if file not in found or not matching(found[file], kind, wanted)]
    return out


def unexpected(found: dict[str, FileEdges], must_not: dict[str, Any]) -> list[str]:
    """The forbidden records that were found."""
    return [f"{file} {kind} {row}" for file, kinds in must_not.items()
            for kind, records in kinds.items() for wanted in records
            for row in matching(found[file], kind, wanted)]
