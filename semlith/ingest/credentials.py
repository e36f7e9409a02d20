"""Credential shapes: the strings `secrets.redact` replaces, and what keeps code out.

Three kinds of rule, tried in this order (on a tie the first names the marker):

- **Known tokens**: detect-secrets' plugins (Yelp's maintained catalogue), their denylist
  regexes run over the whole text behind a literal prefilter or a cheap gate; and the
  shapes it only flags by a header or does not know (key blocks, Stripe test keys,
  Anthropic, Hugging Face, Azure AD client secrets...), each named where it is defined.
- **Passwords in URLs** (`scheme://user:password@host`, also with an empty user) and
  **Authorization headers** (`Bearer`, `Basic`, `token`).
- **Assignments to a secret-named key**: `password = ...`, `"apiKey": "..."`,
  `export DB_PASSWORD=...`, `SECRET_KEY = '...'`, `<password>...</password>`,
  `?password=` in a URL, and `NAME=value` anywhere in a line with a command after it
  (`PGPASSWORD=... psql`, `docker run -e API_TOKEN=... shop`). The key must end in a
  word of detect-secrets' keyword plugin (or token, passphrase, credentials), and the
  value must be a literal: not a call, a variable or attribute, a placeholder, a
  template (`${X}`, `%(x)s`, `<password>`), a path or URL, or empty. detect-secrets'
  keyword and high-entropy plugins themselves are left out: they flag ordinary code
  (`password = get_password()`, hashes, lock files).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rule:
    """One credential shape: where to look (any of `needles` must occur, and `gate` must
    match somewhere), what to match, which group is the secret (0: all of it), and an
    optional check of a match."""

    kind: str
    pattern: re.Pattern[str]
    needles: tuple[str, ...] = ()
    group: int | str = 0
    check: Callable[[re.Match[str]], bool] | None = None
    gate: re.Pattern[str] | None = None


# -- known tokens --------------------------------------------------------------------

# detect-secrets plugin class -> (kind, (secret group, needles) per denylist regex).
# Needles where they pay: a pattern that starts with a literal (`ghp_`, `AKIA`, `SK`) is
# found by `re` as fast as by `str.find`, and five needles cost five scans; a pattern that
# starts with a class or a lookbehind scans 10-40x slower than its needle, and one that
# backtracks (npm's `//.+/`) took 4 s on a line of 20,000 `://:` without its needle.
_PLUGINS: dict[str, tuple[str, tuple[tuple[int, tuple[str, ...]], ...]]] = {
    "aws.AWSKeyDetector": ("aws-key", ((0, ()), (1, ("aws", "AWS", "Aws")))),
    "azure_storage_key.AzureStorageKeyDetector": ("azure-storage-key", ((0, ("AccountKey=",)),)),
    "discord.DiscordBotTokenDetector": ("discord-token", ((0, ()),)),
    "github_token.GitHubTokenDetector": ("github-token", ((0, ()),)),
    "gitlab_token.GitLabTokenDetector": ("gitlab-token", ((0, ()),) * 7),
    "mailchimp.MailchimpDetector": ("mailchimp-key", ((0, ()),)),
    "npm.NpmDetector": ("npm-token", ((1, ("_authToken",)),)),  # `.+`: quadratic without
    "openai.OpenAIDetector": ("openai-key", ((0, ("T3BlbkFJ",)),)),
    "pypi_token.PypiTokenDetector": ("pypi-token", ((0, ()),) * 2),
    "sendgrid.SendGridDetector": ("sendgrid-key", ((0, ()),)),
    "slack.SlackDetector": ("slack-token", ((0, ("xox", "XOX")), (0, ("hooks.slack",)))),
    "square_oauth.SquareOAuthDetector": ("square-secret", ((0, ()),)),
    "stripe.StripeDetector": ("stripe-key", ((0, ("k_live_",)),)),
    "telegram_token.TelegramBotTokenDetector": ("telegram-token", ((0, ()),)),
    "twilio.TwilioKeyDetector": ("twilio-key", ((0, ()), (0, ()))),
}
# Patterns that start with a class and have no literal to look for first get a regex
# that must match first, one that starts with a literal: over site-packages telegram's
# pattern took 990 ms, its gate 30 (docs/performance.md, "index").
_GATES: dict[str, str] = {
    "telegram_token.TelegramBotTokenDetector": r":(?<=\d{8}:)[0-9A-Za-z_-]{35}",
    "discord.DiscordBotTokenDetector": r"\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}",
    "mailchimp.MailchimpDetector": r"-us\d",
}

_PEM_LABEL = r"(?P<label>[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)"
# What the lines of a key block may hold besides base64: PEM headers (`Proc-Type: 4,...`),
# the quotes and "\n" of a string in code, and the marks that comment a line out or quote
# it in mail (`# `, `; `, `// `, `> `, ` * `).
_PEM_BODY = r"[A-Za-z0-9+/=\s\\\"',:#;>*!-]"
# One more line of a block whose end is missing: comment marks, then a header or base64.
_KEY_LINE = r"(?:[ \t]*(?:\\n|\n)[#;>/*! \t]*(?:[\w-]+:[^\n]*|[A-Za-z0-9+/=]{16,}))"
_SSH2 = "SSH2 ENCRYPTED PRIVATE KEY"


def _known_tokens() -> Iterator[Rule]:
    """Key blocks and the token shapes detect-secrets does not know."""
    # A block ends at its END line; the scan for it stops at the next BEGIN (without,
    # 5,000 lone headers took 2.6 s, each scanning 64 KB on).
    yield Rule("private-key", re.compile(
        rf"-----BEGIN {_PEM_LABEL}-----(?:(?!-----BEGIN ){_PEM_BODY}){{0,65536}}?"
        r"-----END (?P=label)-----"), ("PRIVATE KEY",))
    # A header whose END is missing (a truncated paste): the header and the lines under
    # it; code that only names the header loses just that string.
    yield Rule("private-key", re.compile(rf"-----BEGIN {_PEM_LABEL}-----{_KEY_LINE}*"),
               ("PRIVATE KEY",))
    # RFC 4716 (ssh.com) keys: four dashes and spaces, headers that may hold anything.
    yield Rule("private-key", re.compile(
        rf"---- BEGIN {_SSH2} ----(?:(?!---- BEGIN )[\s\S]){{0,65536}}?---- END {_SSH2} ----"),
        (_SSH2,))
    yield Rule("private-key", re.compile(rf"---- BEGIN {_SSH2} ----{_KEY_LINE}*"), (_SSH2,))
    yield Rule("private-key", re.compile(r"PuTTY-User-Key-File-\d: [^\n]*"
                                         r"(?:\n[#;>/*! \t]*(?:[\w-]+: [^\n]*|[A-Za-z0-9+/=]+))*"),
               ("PuTTY-User-Key-File-",))
    # detect-secrets' JWT pattern ends lazily (it stops before the signature), and its
    # signature runs on over dots and slashes (`<jwt>.txt/b` failed to decode).
    yield Rule("jwt", re.compile(r"eyJ[A-Za-z0-9_=-]+\.eyJ[A-Za-z0-9_=-]+(?:\.[A-Za-z0-9_-]*=*)?"),
               ("eyJ",), check=_jwt)
    yield Rule("github-token", re.compile(r"github_pat_[A-Za-z0-9_]{60,}"), ("github_pat_",))
    yield Rule("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), ("npm_",))
    yield Rule("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), ("AIza",))
    # The Stripe plugin knows live keys only; test and restricted test keys are as secret.
    yield Rule("stripe-key", re.compile(r"\b[rs]k_test_[0-9a-zA-Z]{24,}"), ("k_test_",))
    # Anthropic API and admin keys: sk-ant-api03-..., sk-ant-admin01-...
    yield Rule("anthropic-key", re.compile(r"\bsk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,}"),
               ("sk-ant-",))
    # Hugging Face user access tokens: hf_ and 34 letters (an identifier has underscores).
    yield Rule("huggingface-token", re.compile(r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{34}(?!\w)"))
    # Azure AD (Entra) client secrets: three characters, a digit, "Q~", 31-34 more.
    yield Rule("azure-client-secret", re.compile(
        r"(?<![\w~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![\w~.-])"), ("Q~",))


def _plugin_rules() -> Iterator[Rule]:
    import importlib

    for path, (kind, regexes) in _PLUGINS.items():
        module, name = path.rsplit(".", 1)
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)
        gate = re.compile(_GATES[path]) if path in _GATES else None
        for regex, (group, needles) in zip(plugin.denylist, regexes, strict=True):
            yield Rule(kind, regex, needles, group, gate=gate)


def _jwt(match: re.Match[str]) -> bool:
    from detect_secrets.plugins.jwt import JwtTokenDetector

    return bool(JwtTokenDetector.is_formally_valid(match.group(0)))


# -- passwords in URLs, Authorization headers -----------------------------------------


def _url_and_header_rules() -> Iterator[Rule]:
    from detect_secrets.plugins.basic_auth import BasicAuthDetector

    yield Rule("password", BasicAuthDetector.denylist[0], ("://",), 1, check=_not_the_user)
    # The plugin wants a user before the colon: redis://:password@host has none.
    yield Rule("password", re.compile(r"://:([A-Za-z0-9._~%!$&'*+,;=-]+)@"), ("://:",), 1)
    # `Authorization: Bearer <token>`, in a header, a curl line, a dict or a call.
    for word in ("uthorization", "UTHORIZATION"):  # a literal start: `re` finds it fast
        yield Rule("authorization", re.compile(
            word + r"[\"']?[ \t]*[:=,][ \t]*[\"'`]?(?i:bearer|basic|token)[ \t]+"
            r"([A-Za-z0-9._~+/=-]{8,})"), group=1, check=_credentials)


def _credentials(match: re.Match[str]) -> bool:
    return _literal(match.group(1), quoted=True)


def _not_the_user(match: re.Match[str]) -> bool:
    """`postgres://postgres:postgres@localhost`: a local default, not a secret."""
    user = match.string[match.start() + 3 : match.start(1) - 1].rsplit("/", 1)[-1]
    return user != match.group(1)


# -- assignments to a secret-named key ------------------------------------------------

# The words a secret-named key ends with (`DB_PASSWORD`, `apiKey`, `client-secret`), each
# with a literal start so that `re` can find it fast: one alternation of them scanned
# site-packages at 19 MB/s, 21 literal patterns at 88 MB/s.
_KEY_WORDS = ("pass(?:word|wd|phrase)?", "pwd", "secret", "token", "key", "credentials?",
              "contrase(?:ñ|n)a")
_PASSWORD_WORDS = ("pass", "pwd", "contrase")
# After the word: closing quotes or brackets, a type annotation, an operator, the value.
_VALUE = (r"(?P<close>[\"'\]]{0,2})(?:[ \t]*:[ \t]*[A-Za-z_][\w\[\], .|]{0,60}?(?=[ \t]*=))?"
          r"[ \t]*(?P<op>:=|=>|={1,3}|!==?|:)[ \t]*"
          # In quotes anything but a quote or a space; bare, up to a separator or bracket.
          r"(?P<q>[\"'`])?(?P<value>(?(q)[^\s\"'`\\]{8,}|[^\s\"'`,;\\()\[\]{}<>&]{8,}))(?(q)(?P=q))")
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-ñÑ")


def _assignment_rules() -> Iterator[Rule]:
    for word in _KEY_WORDS:
        kind = "password" if word.startswith(_PASSWORD_WORDS) else "secret"
        for variant in dict.fromkeys((word, word[0].upper() + word[1:], word.upper())):
            yield Rule(kind, re.compile(variant + _VALUE), group="value", check=_assignment)
    # <password>...</password> in XML (Maven's settings.xml, .NET configs).
    yield Rule("password", re.compile(r"<([\w.:-]+)>([^<\s]{8,})</\1>"), group=2,
               check=lambda m: _secret_key(m.group(1)) and _literal(m.group(2), quoted=True))


@functools.cache
def _secret_key_pattern() -> re.Pattern[str]:
    """Key names, lower snake case, that name a secret: the suffixes of detect-secrets'
    keyword plugin and a few it lacks. Long words may end any key (`pgpassword`); short
    ones must be a word of it (`db_pass`, not `bypass`; `api_key`, not `monkey`)."""
    from detect_secrets.plugins.keyword import DENYLIST

    anywhere = ("password", "passwd", "passphrase", "secret", "token", "credentials?",
                "contraseña", "contrasena")
    extra = ("pass", "access_?key", "secret_?key", "signing_?key", "encryption_?key",
             "master_?key", "subscription_?key", "session_?key", "app_?key")
    bounded = [word for word in (*DENYLIST, *extra) if word not in anywhere]
    return re.compile(rf"(?:{'|'.join(anywhere)})$|(?:^|_)(?:{'|'.join(bounded)})$")


def _secret_key(key: str) -> bool:
    snake = re.sub(r"[^a-z0-9ñ]+", "_", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower())
    # .NET's publicKeyToken, a public_key: public by name
    return "public" not in snake and _secret_key_pattern().search(snake) is not None


def _assignment(match: re.Match[str]) -> bool:
    """A literal assigned to a whole key that names a secret, and for a value without
    quotes, the end of the statement after it (else it is prose or an expression) or,
    for `NAME=value`, a space."""
    text, start = match.string, match.start()
    while start > 0 and start > match.start() - 100 and text[start - 1] in _KEY_CHARS:
        start -= 1
    if not _secret_key(text[start : match.end("close") - len(match.group("close"))]):
        return False
    if match.group("q"):
        return _literal(match.group("value"), quoted=True)
    # Without quotes: compared with (`==`), it is a variable; assigned, a literal only
    # when the statement ends after it, or a command may follow it.
    return (match.group("op") in _ASSIGN_OPS and _literal(match.group("value"), quoted=False)
            and (_STATEMENT_END.match(text, match.end()) is not None or _inline(match)))


_ASSIGN_OPS = frozenset({":=", "=>", "=", ":"})


def _inline(match: re.Match[str]) -> bool:
    """`NAME=value` written without spaces, as a shell, an env file, a Dockerfile and a
    command line write it, ends at a space: a command or another assignment may follow
    (`PGPASSWORD=... psql -h db`, `docker run -e API_TOKEN=... shop`; issue #47), and
    gitleaks and detect-secrets end such a value there too."""
    return (match.group("op") == "=" and match.start("op") == match.end("close")
            and match.start("value") == match.end("op")
            and match.string[match.end() : match.end() + 1].isspace())


# What may follow a value without quotes on its line: nothing, a comment, a separator,
# a closing bracket, or the quote that ends a string holding it (a URL's `&password=`).
_STATEMENT_END = re.compile(r"[ \t]*(?:$|[#;,)\]}&|\\\"'`]|//|/\*)", re.MULTILINE)
# A name rather than a secret: snake_case, camelCase, CONSTANT_CASE, dotted attributes,
# words with at most two digits after each (`self.password`, `DB_PASSWORD`, `password1`).
_SEGMENT = r"(?:(?:[A-Z]+(?=[A-Z][a-z]))?[A-Za-z][a-z]*(?:[A-Z][a-z]+)*\d{0,2}|[A-Z]+\d{0,2}|\d+)"
_NAME = re.compile(rf"{_SEGMENT}(?:[._-]+{_SEGMENT})*")
# Looser, for a value without quotes (a type or a variable, `rsa.RSAPrivateKey`): words
# (`RSA`, `Private`, `25519`) 3.5 characters long on average, and at most two changes
# between letters and digits or numbers of 3 digits on average. Of 137,000 identifiers
# in site-packages 92 % pass; of random 16-character values 0.5 % (letters and digits),
# 6 % (one case and digits), 4 % (hex), 6 % (letters only).
_IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[._-]+[A-Za-z0-9]+)*")
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_LETTER_DIGIT = re.compile(r"(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")
_NUMBER = re.compile(r"\d+")
_CALL = re.compile(r"[\w.]+\(.*\)")  # get_token(), in prose or a comparison
# Code, not a value without quotes: `std::function`, `mask==0` (base64 ends with `=` only).
_EXPRESSION = re.compile(r"::|=(?!=*$)")
_TEMPLATE = re.compile(r"%\(\w+\)[sdr]|\{\{|\}\}|\$\{|\{\w*\}|<\w+>")
# A path (`/run/secrets/db`, `~/.pgpass`): segments that are names, unlike base64.
_PATH = re.compile(rf"(?:~|\.\.?)?(?:/(?:[._-]*{_SEGMENT}(?:[._-]+{_SEGMENT})*[._-]*)?)+")
_PLACEHOLDER_WORDS = ("your", "example", "changeme", "change_me", "placeholder", "xxxx",
                      "dummy", "redacted", "replace", "insert_", "token", "...", "\u2026")
_REFERENCE = ("$", "%", "[REDACTED:")


def _literal(value: str, *, quoted: bool) -> bool:
    """Whether a value without a known prefix is a literal secret, not code, a name, a
    reference, a path, a URL (the URL rules judge those), a template or a placeholder."""
    lower = value.lower()
    return not (_NAME.fullmatch(value.strip("#@$_.:-")) or (not quoted and _named(value))
                or value.startswith(_REFERENCE) or _PATH.fullmatch(value)
                or (not quoted and (value.startswith(("*", "&", "!", ":"))  # YAML, reST
                                    or _EXPRESSION.search(value) is not None))
                or "://" in value or _TEMPLATE.search(value) or _CALL.fullmatch(value)
                or any(word in lower for word in _PLACEHOLDER_WORDS))


def _named(value: str) -> bool:
    core = value.strip("_$@")
    if not _IDENTIFIER.fullmatch(core):
        return False
    words = _WORD.findall(core)
    if sum(map(len, words)) < 3.5 * len(words):
        return False
    numbers = _NUMBER.findall(core)  # X25519, MLKEM768: names whose numbers are long
    return len(_LETTER_DIGIT.findall(core)) <= 2 or sum(map(len, numbers)) >= 3 * len(numbers)


@functools.cache
def redaction_rules() -> tuple[Rule, ...]:
    """Every rule, in the order a tie is named (imports detect-secrets on first use:
    ~0.15 s)."""
    return (*_known_tokens(), *_plugin_rules(), *_url_and_header_rules(),
            *_assignment_rules())


@functools.cache
def token_rules() -> tuple[Rule, ...]:
    """The rules for shapes that stand alone, without a key or a URL around them: what a
    file name can hold."""
    return (*_known_tokens(), *_plugin_rules())
