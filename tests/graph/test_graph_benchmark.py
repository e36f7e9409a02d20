"""The graph benchmark's downloaded corpora (benchmarks/graph.py): unpacked once, and
refused when the registry's tarball is not the pinned one. `npm` is faked by a script
on PATH (the registry is the boundary); the unpacking is real."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from tests.benchmark_util import load_benchmark

bench = load_benchmark("graph")


def fake_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A `npm pack` that writes a package tarball and reports it; returns its integrity."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        body = b"export function f() { return 1 }\n"
        info = tarfile.TarInfo("package/src/index.ts")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
    tgz = tmp_path / "pkg-1.0.0.tgz"
    tgz.write_bytes(data.getvalue())
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(data.getvalue()).digest()).decode()
    script = tmp_path / "bin" / "npm"
    script.parent.mkdir()
    report = json.dumps([{"filename": tgz.name, "integrity": integrity}])
    script.write_text(f"#!/bin/sh\n# npm pack SPEC --json --pack-destination DIR\n"
                      f"cp {tgz} \"$5/{tgz.name}\"\necho '{report}'\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{script.parent}:/usr/bin:/bin")
    return integrity


def test_a_download_is_unpacked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    integrity = fake_npm(tmp_path, monkeypatch)
    monkeypatch.setitem(bench.DOWNLOADS, "pkg", ("pkg@1.0.0", integrity, "a commit"))
    root = bench.downloaded("pkg", tmp_path / "dl")
    assert (root / "src" / "index.ts").read_text().startswith("export function f")
    (tmp_path / "bin" / "npm").unlink()  # a second call does not fetch again
    assert bench.downloaded("pkg", tmp_path / "dl") == root


def test_a_tarball_that_is_not_the_pinned_one_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_npm(tmp_path, monkeypatch)
    monkeypatch.setitem(bench.DOWNLOADS, "pkg", ("pkg@1.0.0", "sha512-other", "a commit"))
    with pytest.raises(SystemExit, match="not the pinned"):
        bench.downloaded("pkg", tmp_path / "dl")
    assert not (tmp_path / "dl" / "pkg").exists()


def test_every_download_has_a_reference() -> None:
    refs = {name: ref for name, (folder, ref) in bench.CORPORA.items()
            if folder.startswith("download:")}
    assert set(refs) == set(bench.DOWNLOADS)
    for ref in refs.values():
        assert (bench.HERE / "graph_reference" / "data" / ref).is_file()


def test_the_rust_oracle_sees_a_call_after_a_name_or_a_turbofish() -> None:
    oracle = load_benchmark("graph_reference/rust_save_analysis")
    text = "let v = parse::<Vec<u8>>(s); x.len (); use a::f; Foo::new; g\n  (1)"
    ends = {name: text.index(name) + len(name) for name in ("parse", "len", "f", "new")}
    assert {name: oracle._opens_call(text, end) for name, end in ends.items()} == {
        "parse": True, "len": True, "f": False, "new": False}
    assert oracle._opens_call(text, len(text) - 5)  # `g` then a newline, then `(`
    source = oracle._Source("fn a() {}\nfn é() { a() }\n")
    assert source.text[source.offset(2, 10):source.offset(2, 11)] == "a"
