"""Credentials in file and folder names (issue #26): withheld, and never stored or shown.

A path is stored in the catalog and shown by search hits, `files` and `skipped`, so a
file named after a token is withheld like a secret file and every path the walk records
has the token replaced by a marker.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from semlith.base.settings import Settings
from semlith.ingest.secrets import credential_in_name, redact_name, secret_content
from semlith.ingest.walk import Candidate, Skipped, SkipReason, is_ignored, walk_files
from semlith.store import Store
from tests.canaries import canaries
from tests.secret_fixtures import everything_stored, fakes, index

FAKE = fakes()
GITLAB = "glpat" + "-" + "Ab3dE6gH9jK2mN5pQ8sT"


@pytest.fixture
def named(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for rel in [f"tokens/{FAKE.github}.txt", f"tokens/.{FAKE.slack}", f"{GITLAB}/notes.md",
                "tokens/README.md", "src/a_long_but_ordinary_module_name.py",
                "data/6ec57f84c680d3a3778b__mypyc.so.txt"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("nothing secret in here\n")
    return root


@pytest.mark.parametrize(("name", "kind"), [
    (f"{FAKE.github}.txt", "github-token"), (f"{FAKE.aws_id}.json", "aws-key"),
    (f"backup-{GITLAB}", "gitlab-token"), (f"{FAKE.npm}", "npm-token"),
    (f"session-{FAKE.jwt}.txt", "jwt"),
])
def test_a_name_holding_a_token_is_known(name: str, kind: str) -> None:
    assert credential_in_name(name) == kind
    assert redact_name(f"a/{name}/b") == f"a/{name}/b".replace(
        name, redact_name(name))
    assert "[REDACTED:" in redact_name(name)


@pytest.mark.parametrize("name", [
    "a_long_but_ordinary_module_name.py", "test_redaction_keeps_lines.cpython-311.pyc",
    "6ec57f84c680d3a3778b__mypyc.cpython-311-x86_64-linux-gnu.so",
    "sortedcontainers-2.4.0.dist-info", "password=changeme.txt", "AKIAIOSFODNN7EXAMPLE.txt",
    "ThirdPartyNotices.txt", "xoxo.md",
])
def test_ordinary_names_hold_no_token(name: str) -> None:
    assert credential_in_name(name) is None
    assert redact_name(name) == name


def test_the_walk_withholds_token_names_and_records_them_redacted(named: Path) -> None:
    (named / ".semlithignore").write_text("!tokens/*\n")  # a negation does not opt in
    walked = {item.rel: item for item in walk_files(named)}
    github = "tokens/[REDACTED:github-token].txt"
    assert walked[github] == Skipped(github, SkipReason.SECRET, "github-token in the name")
    folder = "[REDACTED:gitlab-token]/"
    assert walked[folder] == Skipped(folder, SkipReason.SECRET, "gitlab-token in the name")
    hidden = "tokens/.[REDACTED:slack-token]"
    assert walked[hidden] == Skipped(hidden, SkipReason.HIDDEN)
    assert {rel for rel, item in walked.items() if isinstance(item, Candidate)} == {
        "tokens/README.md", "src/a_long_but_ordinary_module_name.py",
        "data/6ec57f84c680d3a3778b__mypyc.so.txt"}
    for secret in (FAKE.github, FAKE.slack, GITLAB):
        assert not any(secret in f"{item.rel} {getattr(item, 'detail', '')}"
                       for item in walked.values())
    # What the watcher asks about an event: the same answer, for the file and below.
    assert is_ignored(named, f"tokens/{FAKE.github}.txt") == SkipReason.SECRET
    assert is_ignored(named, f"{GITLAB}/notes.md") == SkipReason.SECRET


def test_an_old_store_loses_files_named_after_tokens(named: Path, settings: Settings,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A store indexed before names were judged: the next run removes those files, and
    what it records holds no token."""
    with monkeypatch.context() as old:
        old.setattr("semlith.ingest.walk.credential_in_name", lambda name: None)
        old.setattr("semlith.ingest.walk.redact_name", lambda path: path)
        index(named, settings)
    store = Store.open(named / ".semlith", settings=settings)
    try:
        assert FAKE.github in everything_stored(store)  # the leak issue 26 found
    finally:
        store.close()
    report = index(named, settings)
    assert report.removed == 2
    store = Store.open(named / ".semlith", settings=settings)
    try:
        stored = everything_stored(store)
        assert not any(secret in stored for secret in (FAKE.github, FAKE.slack, GITLAB))
        assert store.catalog.skipped()["tokens/[REDACTED:github-token].txt"].reason == "secret"
    finally:
        store.close()


def test_key_files_in_other_formats_are_withheld_by_content() -> None:
    """SSH2 (RFC 4716) and PuTTY keys under a harmless name, as PEM keys are."""
    corpus = {c.name: c for c in canaries()}
    ssh2 = corpus["SSH2 (RFC 4716) private key in Markdown"].parts
    armour = "-" * 4
    key = (f"{armour} BEGIN SSH2 ENCRYPTED PRIVATE KEY {armour}\n" + "\n".join(ssh2)
           + f"\n{armour} END SSH2 ENCRYPTED PRIVATE KEY {armour}\n")
    assert secret_content("deploy/build-box", key.encode()) == "private key"
    putty = "PuTTY-User-Key-File-" + "3: ssh-ed25519\nEncryption: none\n"
    assert secret_content("keys/ci.txt", putty.encode()) == "private key"
    public = f"{armour} BEGIN SSH2 PUBLIC KEY {armour}\nAAAAB3NzaC1yc2E\n"
    assert secret_content("keys/ci.pub.txt", public.encode()) is None
    rng = random.Random(3)
    assert secret_content("notes.txt", rng.randbytes(64).hex().encode()) is None


def test_indexing_a_token_named_file_by_its_path_records_it_redacted(
        named: Path, settings: Settings) -> None:
    """`semlith index tokens/ghp_....txt` names the file itself: its skip record too must
    hold the marker, not the token."""
    from semlith.local import LocalLibrary
    from tests.conftest import RecordingFactory

    index(named, settings)
    library = LocalLibrary(settings, embedder_factory=RecordingFactory())
    library.index([str(named / "tokens" / f"{FAKE.github}.txt")])
    library.close()
    store = Store.open(named / ".semlith", settings=settings)
    try:
        assert FAKE.github not in everything_stored(store)
        assert any("[REDACTED:github-token]" in r for r in store.catalog.skipped())
    finally:
        store.close()
