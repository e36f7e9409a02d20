"""What semlith never serves: secret files, and credential-shaped strings in other files.

Two layers, both applied before anything is stored, embedded or returned:

- **Secret files** are withheld whole. By name (`secret_name`: private keys, keystores,
  env files, registry and cloud credential files, kubeconfigs...), judged by the walk
  without reading the file; and by content shape (`secret_content`: a PEM private key
  under any name, a Java keystore, an AWS credentials file, a service-account key...),
  judged on the bytes the indexer reads anyway. A `.semlithignore` negation opts a path
  back in (see `walk.py`).
- **Credential-shaped strings** (`redact`) inside any indexed text are replaced by a
  marker that keeps the line count, so line numbers still match the file. The patterns
  are detect-secrets' (Yelp's maintained catalogue), run over the whole text at once
  behind a literal prefilter rather than through its per-line scanner: the same regexes,
  7x less time (8 MB/s on 40 MB of site-packages; docs/performance.md, "index"). Its
  keyword and high-entropy plugins are left out: they flag ordinary code (hashes, lock
  files, `password = get_password()`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from semlith.languages import language_of

# Raise when the rules below change so that existing stores are checked again on their
# next full run (the indexer records the revision it applied in the store).
RULES_REVISION = 1
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
_KEY_START = re.compile(r"-----BEGIN [A-Z0-9 ]+-----|PuTTY-User-Key-File-\d")
_KEY_ATTRIBUTES = ("Bag Attributes", "Key Attributes")  # what openssl pkcs12 writes first
_PRIVATE_KEY = re.compile(r"PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d")
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
    head = data[:CONTENT_SNIFF_BYTES].decode("latin-1").replace("\r\n", "\n")
    if _opens_like_a_key(head) and _PRIVATE_KEY.search(head):
        return "private key"
    language = language_of(rel)
    if language is not None and language.name not in _DATA_LANGUAGES:
        return None
    return next((why for why, test in _DATA_SHAPES if test(head)), None)


# -- credential-shaped strings ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rule:
    """One credential shape: where to look (`needles`, any of them must occur), what to
    match, which group is the secret (0: all of it), and an optional check of a match."""

    kind: str
    pattern: re.Pattern[str]
    needles: tuple[str, ...] = ()
    group: int = 0
    check: Callable[[re.Match[str]], bool] | None = None


@dataclass(frozen=True, slots=True)
class Redacted:
    text: str
    count: int  # strings replaced by a marker


def redact(text: str, rules: Sequence[Rule] | None = None) -> Redacted:
    """`text` with every credential-shaped string replaced by a marker naming its kind.

    A marker keeps the newlines of what it replaces (a private-key block becomes a marker
    and empty lines), so line N of the result is line N of the input.
    """
    spans: list[tuple[int, int, str]] = []
    for rule in redaction_rules() if rules is None else rules:
        if rule.needles and not any(needle in text for needle in rule.needles):
            continue  # str.find is ~50x faster than a regex scan that finds nothing
        for match in rule.pattern.finditer(text):
            start, end = match.span(rule.group)
            secret = match.group(rule.group)
            if start < end and not _placeholder(secret) and \
                    (rule.check is None or rule.check(match)):
                spans.append((start, end, rule.kind))
    if not spans:
        return Redacted(text, 0)
    out: list[str] = []
    at = 0
    merged = _merged(spans)
    for start, end, kind in merged:
        out += [text[at:start], MARKER.format(kind=kind), "\n" * text.count("\n", start, end)]
        at = end
    out.append(text[at:])
    return Redacted("".join(out), len(merged))


# Documentation writes `https://user:pass@host` and `AKIAXXXXXXXXXXXXXXXX`: not secrets.
_PLACEHOLDERS = frozenset({"pass", "password", "passwd", "pwd", "secret", "token", "changeme",
                           "example", "redacted", "hunter2"})


def _placeholder(secret: str) -> bool:
    from detect_secrets.filters.heuristic import is_templated_secret

    return (len(set(secret.lower())) < 5 or secret.lower() in _PLACEHOLDERS
            or is_templated_secret(secret))


def _connection_string(match: re.Match[str]) -> bool:
    """A `Password=` inside a `;`-separated connection string (a key naming a server or
    user on the same line), not any assignment in code."""
    text = match.string
    end = text.find("\n", match.end())
    line = text[text.rfind("\n", 0, match.start()) + 1 : end if end >= 0 else len(text)]
    return ";" in line and _CONNECTION_KEY.search(line) is not None


_CONNECTION_KEY = re.compile(r"(?i)\b(?:server|host|data source|user id|uid|database)\s*=")


def _jwt(match: re.Match[str]) -> bool:
    from detect_secrets.plugins.jwt import JwtTokenDetector

    return bool(JwtTokenDetector.is_formally_valid(match.group(0)))


def _merged(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping spans (a key block matched by two rules) as one, the widest kind first."""
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(spans, key=lambda s: (s[0], -s[1])):
        if merged and start < merged[-1][1]:
            first, last, first_kind = merged[-1]
            merged[-1] = (first, max(last, end), first_kind)
        else:
            merged.append((start, end, kind))
    return merged


_PEM_LABEL = r"(?P<label>[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)"
# detect-secrets plugin class -> (kind, needles, secret group per denylist regex).
_PLUGINS: dict[str, tuple[str, tuple[str, ...], tuple[int, ...]]] = {
    "aws.AWSKeyDetector": ("aws-key", ("A3T", "ABIA", "ACCA", "AKIA", "ASIA", "aws", "AWS"),
                           (0, 1)),
    "azure_storage_key.AzureStorageKeyDetector": ("azure-storage-key", ("AccountKey=",), (0,)),
    "basic_auth.BasicAuthDetector": ("password", ("://",), (1,)),
    "discord.DiscordBotTokenDetector": ("discord-token", (".",), (0,)),
    "github_token.GitHubTokenDetector": ("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
                                          (0,)),
    "gitlab_token.GitLabTokenDetector": ("gitlab-token", ("gl", "GR1348941"), (0,) * 7),
    "mailchimp.MailchimpDetector": ("mailchimp-key", ("-us",), (0,)),
    "npm.NpmDetector": ("npm-token", ("_authToken",), (1,)),
    "openai.OpenAIDetector": ("openai-key", ("T3BlbkFJ",), (0,)),
    "pypi_token.PypiTokenDetector": ("pypi-token", ("pypi-",), (0, 0)),
    "sendgrid.SendGridDetector": ("sendgrid-key", ("SG.",), (0,)),
    "slack.SlackDetector": ("slack-token", ("xox", "hooks.slack"), (0, 0)),
    "square_oauth.SquareOAuthDetector": ("square-secret", ("sq0csp-",), (0,)),
    "stripe.StripeDetector": ("stripe-key", ("k_live_",), (0,)),
    "telegram_token.TelegramBotTokenDetector": ("telegram-token", (":",), (0,)),
    "twilio.TwilioKeyDetector": ("twilio-key", ("AC", "SK"), (0, 0)),
}


@functools.cache
def rules_fingerprint() -> str:
    """Names the rules in force: this module's revision and detect-secrets' version."""
    from importlib.metadata import version

    return f"{RULES_REVISION}:{version('detect-secrets')}"


@functools.cache
def redaction_rules() -> tuple[Rule, ...]:
    """detect-secrets' patterns (imported on first use: ~0.15 s) plus the shapes it only
    flags by a header (private-key blocks) or does not know."""
    import importlib

    rules: list[Rule] = [
        # The body of a block is base64 (with PEM headers, or quoted with "\\n" in code).
        Rule("private-key", re.compile(
            rf"-----BEGIN {_PEM_LABEL}-----[A-Za-z0-9+/=\s\\\"',:-]{{0,65536}}?"
            r"-----END (?P=label)-----"), ("PRIVATE KEY",)),
        # A header whose END is missing (a truncated paste): the header and the base64
        # lines under it; code that only names the header loses just that string.
        Rule("private-key", re.compile(
            rf"-----BEGIN {_PEM_LABEL}-----(?:[ \t]*(?:\\n|\n)[ \t]*[A-Za-z0-9+/=]{{16,}})*"),
            ("PRIVATE KEY",)),
        # detect-secrets' JWT pattern ends lazily (it stops before the signature).
        Rule("jwt", re.compile(r"eyJ[A-Za-z0-9_=-]+\.eyJ[A-Za-z0-9_=-]+\.?[A-Za-z0-9_.+/=-]*"),
             ("eyJ",), check=_jwt),
        Rule("github-token", re.compile(r"github_pat_[A-Za-z0-9_]{60,}"), ("github_pat_",)),
        Rule("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), ("npm_",)),
        Rule("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), ("AIza",)),
        # ADO.NET / JDBC / libpq style: Server=...;User Id=...;Password=...;
        Rule("password", re.compile(r"(?i)(?<![\w.])(?:password|pwd)\s*=\s*([^;'\"\s]+)"),
             ("assword", "ASSWORD", "wd", "WD"), group=1, check=_connection_string),
    ]
    for path, (kind, needles, groups) in _PLUGINS.items():
        module, name = path.rsplit(".", 1)
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)
        for regex, group in zip(plugin.denylist, groups, strict=True):
            rules.append(Rule(kind, regex, needles, group))
    return tuple(rules)
