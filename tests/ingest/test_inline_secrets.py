"""A secret assigned in front of a command (issue #47, finding 2) is never served.

`PGPASSWORD=... psql`, `DB_PASSWORD=... ./run.sh`, `API_TOKEN=... node app.js`,
`docker run -e DB_PASSWORD=...`, `AWS_SECRET_ACCESS_KEY=... python`: a value without
quotes was redacted only when the statement ended after it, so these came out through
the chunk text, the keyword index, read, search and grep. Every position of these shapes
in a line is in the canary corpus (`tests/canary_positions.py`, `test_canaries.py`);
here the issue's own lines go through each channel once, and the rest of each line
stays searchable.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest
from click.testing import CliRunner

from semlith.base.settings import Settings
from semlith.ingest.secrets import redact
from semlith.local import LocalLibrary
from semlith.store import Store
from semlith.types import Scope
from tests.canaries import canaries
from tests.canary_positions import POSITIONS, SHAPES
from tests.conftest import HashEmbedder
from tests.secret_fixtures import everything_stored, index, random_chars

# Made at run time (secret_fixtures.py): no literal here has a credential's shape.
_RNG = random.Random(47)
PG = "hunter2hunter2"  # the issue's example: a literal, if a weak one
DB, API, DOCKER = (random_chars(_RNG, n) for n in (16, 18, 16))
AWS = "w" + random_chars(_RNG, 39, string.ascii_letters + string.digits + "+/")
SECRETS = (PG, DB, API, AWS, DOCKER)
DEPLOY = (
    "#!/bin/sh\n"
    "# Nightly restore of the shop's database.\n"
    f"PGPASSWORD={PG} psql -h db -U shop shop < dump.sql\n"
    f"DB_PASSWORD={DB} ./run.sh --migrate\n"
    f"API_TOKEN={API} node app.js\n"
    f"docker run -e DB_PASSWORD={DOCKER} -p 8080:8080 shop:1.4\n"
    f"AWS_SECRET_ACCESS_KEY={AWS} python upload.py nightly\n"
)


def test_the_issue_lines_keep_their_commands() -> None:
    """Only the value goes: what follows it (the command, its flags) stays searchable."""
    out = redact(DEPLOY)
    assert out.count == 5
    assert out.text.split("\n")[2:7] == [
        "PGPASSWORD=[REDACTED:password] psql -h db -U shop shop < dump.sql",
        "DB_PASSWORD=[REDACTED:password] ./run.sh --migrate",
        "API_TOKEN=[REDACTED:secret] node app.js",
        "docker run -e DB_PASSWORD=[REDACTED:password] -p 8080:8080 shop:1.4",
        "AWS_SECRET_ACCESS_KEY=[REDACTED:secret] python upload.py nightly",
    ]


def test_several_on_a_line_and_each_is_redacted() -> None:
    line = f"env LANG=C PGPASSWORD={PG} API_TOKEN={API}\tDB_PASSWORD='{DB}' ./run.sh\n"
    out = redact(line)
    assert out.count == 3 and not any(secret in out.text for secret in SECRETS)
    assert out.text.startswith("env LANG=C PGPASSWORD=[REDACTED:password] API_TOKEN=")


@pytest.mark.parametrize("line", [
    "PGPASSWORD= psql_wrapper --host db\n",  # an empty value, then a command
    "password = hunter2hunter2 and more words\n",  # a value with spaces: not one word
    "token: Tq8zLmR4vXk2Wp9s is what the docs call it\n",  # prose after `key: value`
    "PGPASSWORD=Tq8zLmR4vXk2Wp9s(psql)\n",  # code, not a word a space ends
])
def test_only_name_equals_value_ends_at_a_space(line: str) -> None:
    """`NAME=value` is one shell word; after `key = ` or `key: ` a space does not end a
    value (YAML and INI run it to the end of the line), so those keep the old rule."""
    assert redact(line).count == 0


def test_the_position_matrix_is_complete() -> None:
    corpus = {c.name for c in canaries()}
    wanted = {f"{shape.key} {position.slug}" for shape in SHAPES for position in POSITIONS}
    assert wanted <= corpus
    assert len(wanted) == len(SHAPES) * len(POSITIONS) >= 120


def _tree(root: Path) -> None:
    files = {
        "deploy.sh": DEPLOY,
        "Dockerfile": f"FROM node:22\nENV API_TOKEN={API} NODE_ENV=production\n"
                      f"RUN PGPASSWORD={PG} ./migrate.sh\n",
        "ci/deploy.yml": f"jobs:\n  deploy:\n    steps:\n      - run: DB_PASSWORD={DB} make\n",
        "notes.md": f"Restore by hand: `AWS_SECRET_ACCESS_KEY={AWS} python upload.py`.\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_no_channel_serves_an_inline_secret(tmp_path: Path, settings: Settings,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "shop"
    _tree(root)
    assert index(root, settings).complete
    store = Store.open(root / ".semlith", settings=settings)
    try:
        stored = everything_stored(store)
        assert "psql -h db -U shop" in stored
        assert [s for s in SECRETS if s in stored] == []
        assert [s for s in SECRETS if store.catalog.keyword(s, 5)] == []
        assert store.stats()["withheld"]["redacted_strings"] == 9
    finally:
        store.close()
    library = LocalLibrary(settings, embedder_factory=HashEmbedder)
    scope = Scope(stores=(str(root / ".semlith"),))
    try:
        served = [json.dumps(library.grep(".", regex=True, limit=1000, scope=scope).as_json())]
        assert [s for s in SECRETS if library.grep(s, scope=scope).matches] == []
        for rel in ("deploy.sh", "Dockerfile", "ci/deploy.yml", "notes.md"):
            served.append("\n".join(library.read(rel, scope=scope).lines))
        for query in (*SECRETS, "restore the database with psql"):
            served += [hit.text for hit in library.search(query, k=5, scope=scope).hits]
    finally:
        library.close()
    assert "node app.js" in served[0]
    assert [s for s in SECRETS if any(s in text for text in served)] == []
    _assert_the_cli_serves_none(root, monkeypatch)


def _assert_the_cli_serves_none(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from semlith.cli import Env, main

    monkeypatch.chdir(root)
    app = Env(embedder_factory=lambda name: HashEmbedder(name))
    runner = CliRunner()
    read = runner.invoke(main, ["read", "deploy.sh"], obj=app)
    assert read.exit_code == 0 and "./run.sh --migrate" in read.output, read.output
    exact = runner.invoke(main, ["search", "--exact", "[REDACTED:"], obj=app)
    assert exact.exit_code == 0 and "python upload.py" in exact.output, exact.output
    for secret in SECRETS:
        assert runner.invoke(main, ["search", "--exact", secret], obj=app).exit_code == 1
    assert [s for s in SECRETS if s in read.output + exact.output] == []
