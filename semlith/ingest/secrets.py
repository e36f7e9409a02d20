"""What semlith never serves: secret files, and credential-shaped strings in other files.

Two layers, both applied before anything is stored, embedded or returned:

- **Secret files** are withheld whole. By name (`secret_name`: private keys, keystores,
  env files, registry and cloud credential files, kubeconfigs...), judged by the walk
  without reading the file; and by content shape (`secret_content`: a PEM private key
  under any name, a Java keystore, an AWS credentials file, a service-account key...),
  judged on the bytes the indexer reads anyway. A `.semlithignore` negation opts a path
  back in (see `walk.py`).
- **Credential-shaped strings** (`redact`) inside any indexed text are replaced by a
  marker that keeps the line count, so line numbers still match the file. The shapes
  (`credentials.py`) are mostly detect-secrets' (Yelp's maintained catalogue), run over
  the whole text at once behind literal prefilters rather than through its per-line
  scanner (docs/performance.md, "index"; `benchmarks/bench.py --scenario redact`).
- **Credentials in names**: a file or folder whose name holds one (`ghp_....txt`) is
  withheld (`credential_in_name`), and every path the walk records is redacted
  (`redact_name`), because paths are stored and shown.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from semlith.base.languages import language_of

if TYPE_CHECKING:  # the rules load on first use: serving a file that has nothing to
    # redact (most of a grep) never needs them (issue #45)
    from semlith.ingest.credentials import Rule

# Raise when the rules here or in credentials.py change, so that existing stores are
# checked again on their next full run (the indexer records, per file, the revision it
# read the file with: `rules_fingerprint`).
# 2: issue #26 (commented keys, assignments, more token shapes); 3: issue #47 (a value
# without quotes that a command follows: `PGPASSWORD=... psql`).
RULES_REVISION = 3
MARKER = "[REDACTED:{kind}]"
CONTENT_SNIFF_BYTES = 64 << 10  # the content-shape rules look at the head of a file

# -- secret files by name -------------------------------------------------------------

_NAMES: dict[str, str] = {
    **dict.fromkeys((".env", "credentials", "credentials.json", "credentials.yml",
                     "credentials.yaml", "credentials.csv", "accesskeys.csv",
                     "application_default_credentials.json"), "credentials file"),
    **dict.fromkeys(("secrets.json", "secrets.yml", "secrets.yaml", "secrets.toml",
                     "secrets.env"), "secrets file"),
    **dict.fromkeys((".npmrc", "npmrc", ".pypirc", "pypirc", ".netrc", "netrc", "_netrc",
                     ".pgpass", "pgpass", ".git-credentials", "git-credentials",
                     ".dockercfg", ".htpasswd", "htpasswd"), "login credentials file"),
    **dict.fromkeys(("kubeconfig", "kube.config"), "kubeconfig"),
}
_SUFFIXES: dict[str, str] = {
    **dict.fromkeys((".pem", ".key", ".p8", ".ppk"), "private key"),
    **dict.fromkeys((".p12", ".pfx", ".jks", ".jceks", ".keystore", ".bks", ".keytab",
                     ".kdbx"), "keystore"),
    **dict.fromkeys((".env",), "env file"),
    **dict.fromkeys((".kubeconfig",), "kubeconfig"),
    **dict.fromkeys((".tfstate",), "terraform state (holds secrets in plain text)"),
}
_NAME_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:[._-].*)?"), "ssh private key"),
    (re.compile(r"\.env(?:\..+)?"), "env file"),
    (re.compile(r"client_secrets?[^/]*\.json"), "oauth client secret"),
    (re.compile(r".+\.tfstate\.backup"), "terraform state (holds secrets in plain text)"),
)
_NOT_SECRET_SUFFIXES = (".pub",)  # id_rsa.pub is the public half


def secret_name(name: str) -> str | None:
    """Why a file called `name` (the last part of its path) is withheld, or None."""
    lower = name.lower()
    if lower.endswith(_NOT_SECRET_SUFFIXES):
        return None
    found = _NAMES.get(lower) or _SUFFIXES.get(PurePosixPath(lower).suffix)
    if found:
        return found
    return next((why for pattern, why in _NAME_PATTERNS if pattern.fullmatch(lower)), None)


# -- secret files by content shape ----------------------------------------------------

_KEYSTORE_MAGIC = (b"\xfe\xed\xfe\xed", b"\xce\xce\xce\xce")  # JKS, JCEKS
# File types whose whole content may be a credentials file; code is judged by `redact`.
_DATA_LANGUAGES = frozenset({"text", "ini", "json", "yaml", "toml", "csv", "xml"})
_KEY_START = re.compile(r"-----BEGIN [A-Z0-9 ]+-----|---- BEGIN SSH2 [A-Z ]+ ----|"
                        r"PuTTY-User-Key-File-\d")
_KEY_ATTRIBUTES = ("Bag Attributes", "Key Attributes")  # what openssl pkcs12 writes first
_PRIVATE_KEY = re.compile(r"PRIVATE KEY(?: BLOCK)?-----|PRIVATE KEY ----|PuTTY-User-Key-File-\d")
_GIT_CREDENTIAL = re.compile(r"https?://[^\s:@/]+:[^\s@/]+@\S+")
_HTPASSWD = re.compile(r"[^:\s]+:(?:\$apr1\$|\{SHA\}|\$2[aby]\$|\$[156]\$)\S+")
# (what it is, a test of the file's head that is truthy for that shape)
_DATA_SHAPES: tuple[tuple[str, Callable[[str], object]], ...] = (
    ("AWS credentials file", re.compile(
        r"(?ims)^\[[^\]\n]+\]\s*$.*^\s*aws_secret_access_key\s*=\s*\S").search),
    ("service account key", lambda t: bool(
        re.search(r'"type"\s*:\s*"(?:service_account|authorized_user)"', t)
        and re.search(r'"(?:private_key|refresh_token|client_secret)"\s*:\s*"[^"]', t))),
    ("kubeconfig", lambda t: bool(re.search(r"(?m)^kind:\s*Config\s*$", t)
                                  and re.search(r"(?m)^users:", t))),
    ("docker registry credentials", lambda t: bool(
        re.search(r'"auths"\s*:', t) and re.search(r'"auth"\s*:\s*"[^"]', t))),
    ("netrc", re.compile(r"(?m)^\s*(?:machine\s+\S+|default)\b[^\n]*(?:\n[^\n]*){0,3}?"
                         r"\bpassword\s+\S").search),
    ("npm credentials", re.compile(
        r"(?m)^\s*(?://\S*:)?_(?:authToken|auth|password)\s*=\s*\S").search),
    ("pypi credentials", lambda t: bool(
        re.search(r"(?m)^\[(?:distutils|pypi|testpypi)\]", t)
        and re.search(r"(?m)^\s*password\s*[:=]\s*\S", t))),
    ("git credentials", lambda t: _every_line(t, _GIT_CREDENTIAL)),
    ("htpasswd", lambda t: _every_line(t, _HTPASSWD)),
    ("env file", lambda t: _env_shaped(t)),
)


def _every_line(text: str, line: re.Pattern[str]) -> bool:
    """Whether every non-blank line is `line` (one regex per line: no backtracking across
    a whole file)."""
    lines = [part.strip() for part in text.split("\n") if part.strip()]
    return bool(lines) and all(line.fullmatch(part) for part in lines)
_ASSIGNMENT = re.compile(r"(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)=(\S?)")
_SECRET_WORD = re.compile(r"SECRET|TOKEN|PASSW|PWD|(?:API|AUTH|ACCESS|PRIVATE)_?KEY|CREDENTIAL",
                          re.IGNORECASE)
_REFERENCE = "$%<{"  # ${DB_PASSWORD}, %(pw)s, <password>: a placeholder, not a secret


def _env_shaped(text: str) -> bool:
    """A copied `.env`: mostly NAME=value lines, one of them naming a secret with a value."""
    lines = [line.strip() for line in text.split("\n")]
    lines = [line for line in lines if line and not line.startswith("#")]
    matches = [m for m in map(_ASSIGNMENT.match, lines) if m]
    if not matches or len(matches) < 0.8 * len(lines):
        return False
    return any(m.group(2) and m.group(2) not in _REFERENCE and _SECRET_WORD.search(m.group(1))
               for m in matches)


def _opens_like_a_key(head: str) -> bool:
    """Whether the first line that is not blank, indented or a PKCS#12 attribute line
    opens a PEM block or a PuTTY key. Line by line: a single regex over the head
    backtracked exponentially on files that start with indented lines (an Apache
    LICENSE took minutes)."""
    for line in head.split("\n"):
        text = line.strip()
        if not text:
            continue
        if _KEY_START.match(text):
            return True
        if line[0] not in " \t" and not text.startswith(_KEY_ATTRIBUTES):
            return False
    return False


def secret_content(rel: str, data: bytes) -> str | None:
    """Why a file with these bytes is withheld whole, or None (only its head is read).

    A private key or keystore is withheld under any name; the shapes of credentials files
    (AWS, netrc, npm, env...) are looked for only in files that are not source code,
    where a match means the file *is* such a file rather than code that handles one.
    """
    if data[:4] in _KEYSTORE_MAGIC:
        return "keystore"
    raw = data[:CONTENT_SNIFF_BYTES]
    # What every _PRIVATE_KEY match holds, looked for in the bytes first: most files have
    # neither, and decoding and splitting their 64 KiB head for nothing was 73 ms of a
    # profiled 260 ms grep over 1,000 files (issue #45).
    key = b"PRIVATE KEY" in raw or b"PuTTY-User-Key-File-" in raw
    head = raw.decode("latin-1").replace("\r\n", "\n") if key else ""
    if key and _opens_like_a_key(head) and _PRIVATE_KEY.search(head):
        return "private key"
    language = language_of(rel)
    if language is not None and language.name not in _DATA_LANGUAGES:
        return None
    head = head or raw.decode("latin-1").replace("\r\n", "\n")
    return next((why for why, test in _DATA_SHAPES if test(head)), None)


# -- credential-shaped strings ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Redacted:
    text: str
    count: int  # strings replaced by a marker


def redact(text: str, rules: Sequence[Rule] | None = None) -> Redacted:
    """`text` with every credential-shaped string replaced by a marker naming its kind
    (the shapes are `credentials.py`'s).

    A marker keeps the newlines of what it replaces (a private-key block becomes a marker
    and empty lines), so line N of the result is line N of the input.
    """
    from semlith.ingest.credentials import redaction_rules

    spans = _spans(text, redaction_rules() if rules is None else rules)
    if not spans:
        return Redacted(text, 0)
    out: list[str] = []
    at = 0
    for start, end, kind in spans:
        out += [text[at:start], MARKER.format(kind=kind), "\n" * text.count("\n", start, end)]
        at = end
    out.append(text[at:])
    return Redacted("".join(out), len(spans))


def credential_in_name(name: str) -> str | None:
    """The kind of token a file or folder name holds (`ghp_....txt`), or None."""
    if len(name) < _SHORTEST_TOKEN or _NAME_GATE.search(name) is None:
        return None
    from semlith.ingest.credentials import token_rules

    spans = _spans(name, token_rules())
    return spans[0][2] if spans else None


def redact_name(path: str) -> str:
    """`path` with any token in its names replaced by a marker, to store or show."""
    if len(path) < _SHORTEST_TOKEN or _NAME_GATE.search(path) is None:
        return path
    from semlith.ingest.credentials import token_rules

    return "/".join(redact(name, token_rules()).text for name in path.split("/"))


# What a name must hold for the token rules to be tried on it: 20 characters (an AWS key
# id, the shortest token), 16 letters and digits in a row (the random part of every token
# shape, all but always) or the prefix of a token whose random part separators may cut
# short. Most names have neither: walking the 27,000 entries of site-packages took 580 ms
# of CPU instead of 547 (every rule on every name: 17 us a name, +470 ms).
_SHORTEST_TOKEN = 20
_NAME_GATE = re.compile(r"[A-Za-z0-9]{16}|gl[a-z]{2,6}-|GR1348941|xox|Q~|eyJ|AIza|sq0csp-")
# Characters a token goes on with: a plugin whose pattern has a fixed length (Stripe's
# 24, OpenAI's 20 after T3BlbkFJ) would leave the rest of a longer, newer key behind.
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_-]*")


def _spans(text: str, rules: Sequence[Rule]) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each string to redact, merged, in order."""
    spans: list[tuple[int, int, str]] = []
    for rule in rules:
        if rule.needles and not any(needle in text for needle in rule.needles):
            continue  # str.find is ~50x faster than a regex scan that finds nothing
        if rule.gate is not None and rule.gate.search(text) is None:
            continue
        for match in rule.pattern.finditer(text):
            start, end = match.span(rule.group)
            if start < end and not _placeholder(match.group(rule.group)) and \
                    (rule.check is None or rule.check(match)):
                spans.append((start, _token_end(text, end), rule.kind))
    return _merged(spans)


def _token_end(text: str, end: int) -> int:
    tail = _TOKEN_TAIL.match(text, end)
    return tail.end() if tail else end


# Documentation writes `https://user:pass@host` and `AKIAIOSFODNN7EXAMPLE`: not secrets.
_PLACEHOLDERS = frozenset({"pass", "password", "passwd", "pwd", "secret", "token", "changeme",
                           "example", "redacted", "hunter2"})
# `user:mypassword@host`, `AKIA...EXAMPLE`, `api_key="username:password"`
_PLACEHOLDER_WORDS = ("example", "password", "passwd", "secret")
_SHOUTED = re.compile(r"[A-Z0-9]*_[A-Z0-9_]*")  # YOUR_API_TOKEN, DB_PASSWORD


def _placeholder(secret: str) -> bool:
    from detect_secrets.filters.heuristic import is_templated_secret

    lower = secret.lower()
    return (len(set(lower)) < 5 or lower in _PLACEHOLDERS
            or any(word in lower for word in _PLACEHOLDER_WORDS)
            or _SHOUTED.fullmatch(secret) is not None or is_templated_secret(secret))


def _merged(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping spans (a key block matched by two rules) as one, named by the rule that
    starts first and, on a tie, is widest, then first in `redaction_rules`."""
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(spans, key=lambda s: (s[0], -s[1])):
        if merged and start < merged[-1][1]:
            first, last, first_kind = merged[-1]
            merged[-1] = (first, max(last, end), first_kind)
        else:
            merged.append((start, end, kind))
    return merged


@functools.cache
def rules_fingerprint() -> str:
    """Names the rules in force: this module's revision and detect-secrets' version."""
    return f"{RULES_REVISION}:{_detect_secrets_version()}"


_VERSION_LINE = re.compile(r"""^VERSION\s*=\s*['"]([^'"]+)['"]""", re.M)


def _detect_secrets_version() -> str:
    """detect-secrets' version from its `__version__.py`, found without importing the
    package (its `__init__` loads every plugin and `requests`) or `importlib.metadata`
    (10 ms of a fresh CLI's grep, which compares this with each file's record, issue
    #45); from the installed metadata when that file cannot be read."""
    import importlib.util

    spec = importlib.util.find_spec("detect_secrets")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        try:
            found = _VERSION_LINE.search(
                (Path(folder) / "__version__.py").read_text(encoding="utf-8"))
        except OSError:
            continue
        if found:
            return found.group(1)
    from importlib.metadata import version

    return version("detect-secrets")
