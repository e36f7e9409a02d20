"""Fake credentials made at test time, and a tree that holds them.

Nothing here is a real secret, and no literal in this file has a credential's shape (the
prefixes and PEM armour are joined at run time), so secret scanners of forges have
nothing to flag in the repository.
"""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass
from pathlib import Path

from semlith.base.settings import Settings
from semlith.local import LocalLibrary
from semlith.store import Store
from semlith.types import IndexReport
from tests.conftest import RecordingFactory

_ALNUM = string.ascii_letters + string.digits
_DASHES = "-" * 5


def random_chars(rng: random.Random, n: int, alphabet: str = _ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def pem_block(label: str, rng: random.Random, lines: int = 6) -> str:
    body = "\n".join(base64.b64encode(rng.randbytes(48)).decode() for _ in range(lines))
    return f"{_DASHES}BEGIN {label}{_DASHES}\n{body}\n{_DASHES}END {label}{_DASHES}\n"


def private_key(rng: random.Random, kind: str = "RSA") -> str:
    return pem_block(f"{kind} PRIVATE KEY".strip(), rng)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(rng: random.Random) -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": random_chars(rng, 8), "iat": 1700000000}).encode())
    return f"{header}.{payload}.{_b64url(rng.randbytes(32))}"


@dataclass(frozen=True)
class Fakes:
    """One set of fake credentials; `all` lists the strings that must never be served."""

    aws_id: str
    aws_secret: str
    github: str
    gitlab: str
    npm: str
    slack: str
    jwt: str
    db_password: str
    key: str  # a PEM private key (the whole block)

    @property
    def all(self) -> list[str]:
        key_line = self.key.split("\n")[1]
        return [self.aws_id, self.aws_secret, self.github, self.gitlab, self.npm, self.slack,
                self.jwt, self.db_password, key_line]


def fakes(seed: int = 13) -> Fakes:
    rng = random.Random(seed)
    return Fakes(
        aws_id="AKIA" + random_chars(rng, 16, string.ascii_uppercase + string.digits),
        aws_secret=random_chars(rng, 40),
        github="ghp" + "_" + random_chars(rng, 36),
        gitlab="glpat" + "-" + random_chars(rng, 20),
        npm="npm" + "_" + random_chars(rng, 36),
        slack="xox" + "b-" + "".join(str(rng.randrange(10)) for _ in range(11)) + "-"
        + random_chars(rng, 24, string.ascii_lowercase + string.digits),
        jwt=jwt(rng),
        db_password="pw" + random_chars(rng, 14),
        key=private_key(rng),
    )


def assert_nothing_leaks(text: str, fake: Fakes | None = None) -> None:
    """None of the fakes (by default those of `fakes()`) is in `text`."""
    for secret in (fake or fakes()).all:
        assert secret not in text


def write_secret_tree(root: Path, fake: Fakes) -> None:
    """The leaks issue 13 found, under the names a careless user gives them.

    Withheld whole: id_rsa, credentials.json, a copied env file, an npm token file,
    tests/certs/*. Indexed with strings redacted: config.py and notes.md.
    """
    rng = random.Random(7)
    files = {
        "id_rsa": fake.key,
        "credentials.json": json.dumps({"type": "service_account", "project_id": "demo",
                                        "private_key": fake.key}),
        "env.production": f"APP_NAME=shop\nDB_HOST=db\nDB_PASSWORD={fake.db_password}\n",
        "npm_token.txt": f"//registry.npmjs.org/:_authToken={fake.npm}\n",
        "tests/certs/server.key": private_key(rng, "EC"),
        "tests/certs/server.pem": pem_block("CERTIFICATE", rng),
        "tests/certs/client.txt": private_key(rng, ""),  # a key under a harmless name
        "config.py": (
            '"""Where the shop keeps its cloud settings."""\n\n'
            f'AWS_ACCESS_KEY_ID = "{fake.aws_id}"\n'
            f'aws_secret_access_key = "{fake.aws_secret}"\n'
            f'GITHUB_TOKEN = "{fake.github}"\n'
            f'DATABASE_URL = "postgres://shop:{fake.db_password}@db.internal/shop"\n\n\n'
            "def upload_invoice(bucket, invoice):\n"
            '    """Upload an invoice PDF to the cloud bucket."""\n'
            "    return bucket.put(invoice.name, invoice.data)\n"),
        "notes.md": (
            "# Deploy notes\n\nThe session token of the staging admin:\n\n"
            f"    {fake.jwt}\n\nGitLab deploy token {fake.gitlab}, Slack bot {fake.slack}.\n\n"
            f"```\n{fake.key}```\n\nRotate them after the launch.\n"),
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def index(root: Path, settings: Settings, factory: RecordingFactory | None = None) -> IndexReport:
    library = LocalLibrary(settings, embedder_factory=factory or RecordingFactory())
    try:
        return library.index([str(root)])
    finally:
        library.close()


def everything_stored(store: Store) -> str:
    """Every text column of the catalog, joined: what search, `files`, `skipped` and the
    keyword index could ever return."""
    db = store.catalog.db
    rows = db.execute("SELECT text, idents, symbol FROM chunks").fetchall()
    rows += db.execute("SELECT name, qualname, signature FROM symbols").fetchall()
    rows += db.execute("SELECT path, reason, detail FROM skipped").fetchall()
    rows += db.execute("SELECT path, ext, lang FROM files").fetchall()
    rows += db.execute("SELECT term FROM chunks_vocab").fetchall()
    return "\n".join("\n".join(map(str, row)) for row in rows)
