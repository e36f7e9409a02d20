"""Rust call edges from rustc's own name and type resolution: the reference for the code
graph's Rust edges (#22), where no rust-analyzer installs offline.

    python benchmarks/graph_reference/rust_save_analysis.py CRATE_ROOT OUT.json
        [--corpus NAME] [--rustc /usr/bin/rustc] [--edition 2018] [--cfg 'feature="std"']

Compiles the library crate at CRATE_ROOT (`src/lib.rs`, no dependencies) with Debian
bookworm's rustc 1.63 and `-Zsave-analysis` (RUSTC_BOOTSTRAP=1 lets a stable compiler
take the flag; it was removed after 1.63), and reads the references it records: each
path or method name the compiler resolved, with its span and the definition it means
(after type checking, so `x.parse()` on a typed `x` names that type's method).

Rules (see reference.py for the format):

- A call site is a reference followed in the source by `(` (after a turbofish
  `::<...>`): `f(`, `Type::f(`, `x.f(`, `Type(` for a tuple struct. `call_line` is the
  line of the name token.
- A reference to a function or method defined in the crate is an edge; its
  `callee_start_line` is the line of the definition's name (`fn name`), a tuple
  struct's (`Name(..)` constructs one) the line of `struct Name`. A reference into
  another crate (std, core, alloc) is judged with no edge.
- A call through a trait resolves, as rustc records it, to the trait's method (core's
  `PartialOrd::partial_cmp`, not the crate's impl of it): judged, no edge when the
  trait is not the crate's. A call of a local (a closure, a function value) and of an
  enum variant (`Err(..)`) is unresolved ("non-definition"); a call with no reference
  at all is not seen (calls inside macro bodies the compiler expanded, `(self.f)(x)`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from reference import Edge, Reference, Unresolved, dump

CALLABLE = {"Function", "Method"}


def _opens_call(text: str, end: int) -> bool:
    """Whether the source after offset `end` (a name's end) opens a call."""
    i = end
    while i < len(text) and text[i].isspace():
        i += 1
    if text.startswith("::", i):  # a turbofish: skip its balanced <...>
        i += 2
        while i < len(text) and text[i].isspace():
            i += 1
        if not text.startswith("<", i):
            return False
        depth = 0
        while i < len(text):
            depth += {"<": 1, ">": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        while i < len(text) and text[i].isspace():
            i += 1
    return text.startswith("(", i)


class _Source:
    """A file's text with its line starts: save-analysis spans are (line, column) in
    characters, 1-based (its byte offsets count across the whole compilation)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column - 1


def analyse(root: Path, rustc: str, edition: str, cfgs: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as out:
        command = [rustc, "--edition", edition, "--crate-type", "lib", "--crate-name",
                   "corpus", "src/lib.rs", "-Zsave-analysis", "--emit", "metadata",
                   "--out-dir", out, "--cap-lints", "allow"]
        for cfg in cfgs:
            command += ["--cfg", cfg]
        subprocess.run(command, cwd=root, check=True, env={**os.environ, "RUSTC_BOOTSTRAP": "1"})
        data: dict[str, Any] = json.loads((Path(out) / "save-analysis" /
                                           "libcorpus.json").read_text())
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crate_root", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--corpus", help="corpus name for the meta block")
    parser.add_argument("--rustc", default="/usr/bin/rustc")
    parser.add_argument("--edition", default="2018")
    parser.add_argument("--cfg", action="append", default=[])
    args = parser.parse_args(argv)
    root = args.crate_root.resolve()
    started = time.perf_counter()
    data = analyse(root, args.rustc, args.edition, args.cfg)
    defs = {(d["id"]["krate"], d["id"]["index"]): d for d in data["defs"]}
    files = sorted({d["span"]["file_name"] for d in data["defs"]} |
                   {r["span"]["file_name"] for r in data["refs"]})
    sources = {name: _Source((root / name).read_text(encoding="utf-8")) for name in files}
    edges: list[Edge] = []
    unresolved: list[Unresolved] = []
    for ref in data["refs"]:
        span = ref["span"]
        source = sources[span["file_name"]]
        start = source.offset(span["line_start"], span["column_start"])
        end = source.offset(span["line_end"], span["column_end"])
        name = source.text[start:end]
        if not _opens_call(source.text, end):
            continue
        site = (span["file_name"], span["line_start"], name)
        target = defs.get((ref["ref_id"]["krate"], ref["ref_id"]["index"]))
        if ref["ref_id"]["krate"] != 0:
            continue  # std, core, alloc: judged, no edge
        if target is None or ref["kind"] == "Variable" or target["kind"] in (
                "TupleVariant", "Local"):
            unresolved.append(Unresolved(*site, "non-definition"))
        elif target["kind"] in CALLABLE or target["kind"] == "Struct":  # a tuple struct
            edges.append(Edge(*site[:2], target["span"]["file_name"],
                              target["span"]["line_start"], target["name"]))
        else:
            unresolved.append(Unresolved(*site, "non-definition"))
    rustc_version = subprocess.run([args.rustc, "--version"], capture_output=True,
                                   text=True, check=True).stdout.split()[1]
    meta = {"corpus": args.corpus or root.name, "language": "rust",
            "oracle": "rust_save_analysis.py", "tools": {"rustc": rustc_version},
            "seconds": round(time.perf_counter() - started, 1), "cfg": args.cfg}
    dump(Reference(meta, files, edges, unresolved), args.out)
    print(f"{meta['corpus']}: {len(edges)} edges, {len(unresolved)} unresolved sites, "
          f"{len(files)} files, {meta['seconds']} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
