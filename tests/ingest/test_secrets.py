"""Secrets are never served: withheld files, redacted strings, opt-in, old stores (issue 13)."""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from semlith.base.home import agent_key, control_key, registered_stores
from semlith.base.settings import Settings
from semlith.ingest.document import Withheld, read_document
from semlith.ingest.secrets import MARKER, redact, secret_content, secret_name
from semlith.ingest.walk import Candidate, Skipped, SkipReason, is_ignored, walk_files
from semlith.local import Engine, LocalLibrary
from semlith.local.fleet import Fleet
from semlith.server.app import Keys, create_app
from semlith.store import Store
from semlith.types import Scope
from tests.conftest import HashEmbedder, RecordingFactory
from tests.secret_fixtures import (
    assert_nothing_leaks,
    everything_stored,
    fakes,
    index,
    private_key,
    write_secret_tree,
)

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample"
FAKE = fakes()
WITHHELD = {"id_rsa", "credentials.json", "env.production", "npm_token.txt",
            "tests/certs/server.key", "tests/certs/server.pem", "tests/certs/client.txt"}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".semlith"))
    write_secret_tree(root, FAKE)
    return root


# -- the rules on their own ------------------------------------------------------------


@pytest.mark.parametrize(("name", "why"), [
    ("id_rsa", "ssh private key"), ("id_ed25519", "ssh private key"),
    ("id_rsa_work", "ssh private key"), ("server.pem", "private key"), ("tls.KEY", "private key"),
    ("bundle.p12", "keystore"), ("site.pfx", "keystore"), ("release.jks", "keystore"),
    (".env", "credentials file"), (".env.local", "env file"), ("prod.env", "env file"),
    (".npmrc", "login credentials file"), ("npmrc", "login credentials file"),
    (".pypirc", "login credentials file"), (".netrc", "login credentials file"),
    ("credentials.json", "credentials file"), ("credentials", "credentials file"),
    ("client_secret_1234.apps.json", "oauth client secret"), ("kubeconfig", "kubeconfig"),
    ("prod.tfstate", "terraform state (holds secrets in plain text)"),
])
def test_secret_names(name: str, why: str) -> None:
    assert secret_name(name) == why


@pytest.mark.parametrize("name", ["id_rsa.pub", "app.py", "env.py", "keys.py", "README.md",
                                  "secrets.py", "credentials.py", "monkey.txt", "tokens.go"])
def test_ordinary_names_are_not_secret(name: str) -> None:
    assert secret_name(name) is None


def test_content_shapes() -> None:
    rng = random.Random(1)
    assert secret_content("notes.txt", private_key(rng).encode()) == "private key"
    assert secret_content("x.py", private_key(rng, "OPENSSH").encode()) == "private key"
    bag = "Bag Attributes\n    localKeyID: 01 02\n" + private_key(rng, "")
    assert secret_content("bundle", bag.encode()) == "private key"
    assert secret_content("store.bin", b"\xfe\xed\xfe\xed\x00\x00\x00\x02") == "keystore"
    aws = "[default]\naws_access_key_id = " + FAKE.aws_id + "\naws_secret_access_key = x\n"
    assert secret_content("aws-creds", aws.encode()) == "AWS credentials file"
    kube = "apiVersion: v1\nkind: Config\nclusters: []\nusers:\n- name: admin\n"
    assert secret_content("admin.yaml", kube.encode()) == "kubeconfig"
    assert secret_content("netrc.txt", b"machine api.example login me password x1y2\n") \
        == "netrc"


def _within(seconds: float, work: Callable[[], object]) -> list[object]:
    """What `work` returned, or [] when it did not return in time (a hang, not a speed:
    the shapes below took minutes when a rule backtracked)."""
    import threading

    answers: list[object] = []
    worker = threading.Thread(target=lambda: answers.append(work()), daemon=True)
    worker.start()
    worker.join(timeout=seconds)
    return answers


def test_a_file_that_starts_with_indented_lines_is_judged_at_once() -> None:
    """An Apache LICENSE opens with centred (indented) lines: the key test once
    backtracked exponentially on them and stopped every index run that met one."""
    license_head = "".join(f"{' ' * 30}line {n} of a centred title\n" for n in range(200))
    assert _within(30, lambda: secret_content(
        "LICENSE", (license_head + "Terms and conditions\n").encode())) == [None]
    indented = "  -----BEGIN RSA PRIVATE KEY-----\n" + private_key(random.Random(2), "RSA")
    assert secret_content("LICENSE", indented.encode()) == "private key"


@pytest.mark.parametrize("text", [
    "-----BEGIN RSA PRIVATE KEY-----\n" * 50_000,  # each scanned 64 KB on for its END
    "://:" * 100_000 + "@",  # npm's pattern without its needle: minutes
    ("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n" + "x" * 100 + "\n") * 20_000,
    "{" + ",".join(f"key:a{n} b c" for n in range(50_000)) + "}",  # a minified line
    # 100,000 inline assignments on one line, each redacted (issue #47): ~1 s
    " ".join(f"API_TOKEN=Tq8zLmR4vXk{n:06d}" for n in range(100_000)),
])
def test_hostile_text_is_redacted_at_once(text: str) -> None:
    assert len(_within(30, lambda: redact(text))) == 1


def test_code_that_handles_secrets_is_not_withheld() -> None:
    code = ('"""Parse PEM files."""\nHEADER = "-----BEGIN " + "RSA PRIVATE KEY-----"\n'
            "aws_secret_access_key = os.environ['AWS_SECRET_ACCESS_KEY']\n"
            "[section]\nDB_PASSWORD=x\n")
    assert secret_content("pem.py", code.encode()) is None
    assert secret_content("settings.env.example.md", b"DB_PASSWORD=${DB_PASSWORD}\n") is None
    template = b"APP=shop\nDB_PASSWORD=\nAPI_KEY=<your key>\n"
    assert secret_content("env.template", template) is None


def test_redaction_keeps_lines_and_names_the_kind() -> None:
    text = f'x = 1\nKEY = "{FAKE.aws_id}"\n{FAKE.key}tail = "{FAKE.github}"\n'
    out = redact(text)
    assert out.count == 3
    assert out.text.count("\n") == text.count("\n")
    lines = out.text.split("\n")
    assert lines[1] == f'KEY = "{MARKER.format(kind="aws-key")}"'
    assert lines[2] == MARKER.format(kind="private-key")
    assert lines[-2] == f'tail = "{MARKER.format(kind="github-token")}"'
    assert_nothing_leaks(out.text)


def test_each_fake_is_redacted_alone() -> None:
    for secret in [FAKE.aws_id, FAKE.github, FAKE.gitlab, FAKE.npm, FAKE.slack, FAKE.jwt]:
        out = redact(f"value: {secret} end")
        assert out.count == 1 and secret not in out.text, secret
    url = redact(f"DSN=mysql://app:{FAKE.db_password}@db:3306/app")
    assert url.text == "DSN=mysql://app:[REDACTED:password]@db:3306/app"
    ado = redact(f'"Server=db;User Id=app;Password={FAKE.db_password};Encrypt=true"')
    assert ado.text == '"Server=db;User Id=app;Password=[REDACTED:password];Encrypt=true"'


@pytest.mark.parametrize("text", [
    "connect to https://user:pass@host/path (an example)",
    "AKIAXXXXXXXXXXXXXXXX is what the docs show",
    "url = f'https://{user}:{password}@{host}'",
    "def login(password=None, host='db'): ...",
    "the token is eyJhbGciOi but truncated",
    'HEADER = "-----BEGIN " + "RSA PRIVATE KEY-----"',
])
def test_placeholders_and_code_are_left_alone(text: str) -> None:
    assert redact(text).count == 0


def test_a_header_without_its_block_loses_only_the_header() -> None:
    code = 'START = b"-----BEGIN OPENSSH PRIVATE KEY-----"\nEND = b"-----END OPENSSH PRI'
    code += 'VATE KEY-----"\nparse(START, END)\n'
    out = redact(code)
    assert out.text.split("\n")[2] == "parse(START, END)"


def test_the_sample_corpus_has_nothing_to_redact() -> None:
    for path in SAMPLE.rglob("*"):
        if path.is_file() and ".semlith" not in path.relative_to(SAMPLE).parts:
            assert redact(path.read_text(errors="replace")).count == 0, path


def test_read_document_withholds_and_redacts() -> None:
    with pytest.raises(Withheld, match="private key"):
        read_document("deploy/key.txt", FAKE.key.encode())
    opted = read_document("deploy/key.txt", FAKE.key.encode(), opted_in=True)
    assert opted.redacted == 1 and FAKE.key.split("\n")[1] not in opted.text


# -- the walk --------------------------------------------------------------------------


def test_the_walk_withholds_secret_names_and_a_negation_opts_in(tree: Path) -> None:
    walked = {item.rel: item for item in walk_files(tree)}
    by_name = {"id_rsa", "credentials.json", "tests/certs/server.key", "tests/certs/server.pem"}
    for rel in by_name:
        assert walked[rel] == Skipped(rel, SkipReason.SECRET, walked[rel].detail)  # type: ignore[union-attr]
    assert isinstance(walked["config.py"], Candidate)
    (tree / ".semlithignore").write_text("!tests/certs/*.pem\n")
    opted = {item.rel: item for item in walk_files(tree)}["tests/certs/server.pem"]
    assert isinstance(opted, Candidate) and opted.opted_in
    assert is_ignored(tree, "tests/certs/server.pem") is None
    assert is_ignored(tree, "tests/certs/server.key") == SkipReason.SECRET


# -- indexing and serving --------------------------------------------------------------


def test_nothing_secret_is_stored_embedded_or_found(tree: Path, settings: Settings) -> None:
    recording = RecordingFactory()
    report = index(tree, settings, recording)
    assert report.complete
    store = Store.open(tree / ".semlith", settings=settings)
    try:
        skipped = store.catalog.skipped()
        assert {rel for rel, r in skipped.items() if r.reason == "secret"} == WITHHELD
        assert skipped["env.production"].detail == "env file"
        assert {f.path for f in store.catalog.files()} >= {"config.py", "notes.md"}
        assert_nothing_leaks(everything_stored(store))
        assert_nothing_leaks("\n".join(recording.texts))
        for secret in FAKE.all:
            assert store.catalog.keyword(secret, 5) == [], secret
        assert store.catalog.file("config.py").redacted == 4  # type: ignore[union-attr]
        withheld = store.stats()["withheld"]
        assert withheld == {"secret_files": 7, "redacted_strings": 8, "redacted_files": 2}
    finally:
        store.close()
    library = LocalLibrary(settings, embedder_factory=lambda n: HashEmbedder(n))
    scope = Scope(stores=(str(tree / ".semlith"),))
    try:
        hits = library.search("upload invoice cloud bucket", k=3, scope=scope).hits
        assert hits[0].path == "config.py"
        # which files had strings redacted, by path: the portal lists them (issue #45)
        redacted = {f.path: f.redacted for f in library.files(scope=scope) if f.redacted}
        assert sum(redacted.values()) == 8 and redacted["config.py"] == 4
        assert len(redacted) == 2
        for secret in FAKE.all:
            found = library.search(secret, k=5, scope=scope).hits
            assert_nothing_leaks("\n".join(h.text for h in found))
    finally:
        library.close()


@pytest.fixture
def served(tree: Path, settings: Settings) -> Iterator[TestClient]:
    engine = Engine(settings, lambda name: HashEmbedder(name))
    index(tree, settings)
    fleet = Fleet(engine)
    fleet.open(registered_stores(settings.home))
    fleet.load_models()
    keys = Keys(agent_key(settings.home), control_key(settings.home))
    headers = {"Authorization": f"Bearer {keys.agent}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    asgi = create_app(settings, agent=LocalLibrary(settings, engine=engine, source=fleet,
                                                   agent=True),
                      person=LocalLibrary(settings, engine=engine, source=fleet), keys=keys)
    with TestClient(asgi, base_url="http://127.0.0.1:7365", headers=headers) as client:
        init = client.post("/mcp", json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"}}})
        client.headers.update({"Mcp-Session-Id": init.headers["mcp-session-id"],
                               "MCP-Protocol-Version": "2025-11-25"})
        client.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield client
    fleet.close()
    engine.close()


def _tool(client: TestClient, name: str, arguments: dict[str, object]) -> tuple[str, bool]:
    answer = client.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                       "params": {"name": name, "arguments": arguments}})
    result = answer.json()["result"]
    return "\n".join(c["text"] for c in result["content"]), bool(result["isError"])


def test_semlith_read_and_search_do_not_return_the_secrets(served: TestClient,
                                                          tree: Path) -> None:
    text, failed = _tool(served, "semlith_read", {"target": "config.py"})
    assert not failed and "upload_invoice" in text and "[REDACTED:aws-key]" in text
    assert_nothing_leaks(text)
    notes, failed = _tool(served, "semlith_read", {"target": "notes.md:1-40"})
    assert not failed and "Rotate them" in notes
    assert_nothing_leaks(notes)
    for target in ["id_rsa", "credentials.json", "tests/certs/client.txt"]:
        text, failed = _tool(served, "semlith_read", {"target": target})
        assert failed
        assert_nothing_leaks(text)
    # A file that became a key after it was indexed is withheld when read.
    (tree / "config.py").write_text(FAKE.key)
    text, failed = _tool(served, "semlith_read", {"target": "config.py"})
    assert failed and "withheld as a secret" in text
    assert_nothing_leaks(text)
    for query in [*FAKE.all, "deploy token session", "cloud settings"]:
        found, _ = _tool(served, "semlith_search", {"query": query, "k": 10})
        assert_nothing_leaks(found)


def test_a_negation_opts_a_file_back_in_with_its_strings_redacted(tree: Path,
                                                                 settings: Settings) -> None:
    index(tree, settings)
    (tree / ".semlithignore").write_text("!tests/certs/\n!tests/certs/*\n")
    index(tree, settings)
    store = Store.open(tree / ".semlith", settings=settings)
    try:
        indexed = {f.path for f in store.catalog.files()}
        assert {"tests/certs/server.pem", "tests/certs/client.txt",
                "tests/certs/server.key"} <= indexed
        assert_nothing_leaks(everything_stored(store))
        assert store.stats()["withheld"]["secret_files"] == 4
    finally:
        store.close()


def test_an_old_store_loses_what_the_rules_now_withhold(tree: Path, settings: Settings,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A store indexed before the rules existed: the next run removes the secret files and
    redacts strings, and embeds nothing else again."""
    with monkeypatch.context() as old:
        old.setattr("semlith.ingest.walk.secret_name", lambda name: None)
        old.setattr("semlith.ingest.document.secret_content", lambda rel, data: None)
        old.setattr("semlith.ingest.document.redact",
                    lambda text: type("R", (), {"text": text, "count": 0})())
        index(tree, settings)
    store = Store.open(tree / ".semlith", settings=settings, writable=True)
    assert FAKE.github in everything_stored(store)  # the leak issue 13 found
    with store.catalog.transaction():  # as migration 6 leaves a store indexed before it
        store.catalog.db.execute("UPDATE files SET rules=''")
    store.close()
    recording = RecordingFactory()
    report = index(tree, settings, recording)
    assert report.removed == 4 and report.indexed == 2  # config.py and notes.md redone
    assert report.rechecked == 5 and report.rechunked == 0  # and 3 withheld by content
    assert "redid 5 unchanged files that the secret rules now withhold" in report.summary()
    assert len(recording.texts) < 10  # their chunks only: the sample is not embedded again
    store = Store.open(tree / ".semlith", settings=settings)
    try:
        assert not WITHHELD & {f.path for f in store.catalog.files()}
        assert_nothing_leaks(everything_stored(store))
    finally:
        store.close()
    reads: list[str] = []
    real = read_document

    def counting(rel: str, data: bytes, *, opted_in: bool = False):  # type: ignore[no-untyped-def]
        reads.append(rel)
        return real(rel, data, opted_in=opted_in)

    monkeypatch.setattr("semlith.index.cutting.read_document", counting)
    again = RecordingFactory()
    assert index(tree, settings, again).indexed == 0 and again.texts == []
    assert reads == []  # each file was checked once, and says so


def test_the_cli_says_what_was_withheld(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from semlith.cli import Env, main

    monkeypatch.chdir(tree)
    app = Env(embedder_factory=lambda name: HashEmbedder(name))
    runner = CliRunner()
    indexed = runner.invoke(main, ["index", "--verbose"], obj=app)
    assert indexed.exit_code == 0, indexed.output
    assert "skipped id_rsa: secret (ssh private key)" in indexed.output
    assert "skipped env.production: secret (env file)" in indexed.output
    skipped = runner.invoke(main, ["files", "--skipped"], obj=app).output.splitlines()
    assert "tests/certs/client.txt\tsecret (private key)" in skipped
    stats = runner.invoke(main, ["stats"], obj=app).output
    assert "withheld   7 secret files (`files --skipped`), 8 credential-shaped strings " \
        "redacted in 2 files" in stats


def test_the_rules_fingerprint_names_the_installed_detect_secrets() -> None:
    """Read from the package's `__version__.py` without importing it (issue #45): the
    same version its installed metadata gives, so stores fingerprinted either way
    agree."""
    from importlib.metadata import version

    from semlith.ingest import secrets

    assert secrets._detect_secrets_version() == version("detect-secrets")
    assert secrets.rules_fingerprint().endswith(":" + version("detect-secrets"))
