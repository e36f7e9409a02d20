"""A canary corpus: ~220 fake credentials, each in a realistic file, and ordinary code.

Every canary is built at run time from a seed (prefixes and PEM armour are joined here,
never written out), so no literal in the repository has a real credential's shape and
forge scanners have nothing to flag. `canaries()` holds the shapes issue #26's
adversarial pass tried, the ones covered before it, and issue #47's inline assignments
in every position of a line (`tests/canary_positions.py`); `NEGATIVES` are files of
ordinary code that must come back with nothing redacted.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.canary_positions import ORDINARY_INLINE, positioned
from tests.secret_fixtures import jwt, pem_block, random_chars

_UPPER = string.ascii_uppercase + string.digits
_HEX = "0123456789abcdef"
_B64 = string.ascii_letters + string.digits + "+/"
_URLSAFE = string.ascii_letters + string.digits + "_-"
_DASHES = "-" * 5


@dataclass(frozen=True, slots=True)
class Canary:
    """A fake credential in a file. `parts` must never be served; `kind` is the marker the
    file must show (empty: the file is withheld whole)."""

    name: str
    path: str
    text: str
    parts: tuple[str, ...]
    kind: str


# The lines around a canary, by file type, so each sits in a file that looks real.
_AROUND: dict[str, tuple[str, str]] = {
    ".py": ('"""Settings of the shop service."""\n\nimport os\n\nDEBUG = False\n',
            '\n\ndef is_debug():\n    """Whether the shop runs in debug mode."""\n'
            '    return DEBUG or os.environ.get("SHOP_DEBUG") == "1"\n'),
    ".js": ("// The storefront's API client.\nimport fetch from 'node-fetch';\n\n",
            "\nexport async function ping() {\n  return fetch('/health');\n}\n"),
    ".ts": ("// Feature flags and their backends.\nexport const FLAGS = { beta: true };\n\n",
            "\nexport function enabled(flag: string): boolean {\n  return flag in FLAGS;\n}\n"),
    ".go": ("package billing\n\nimport \"fmt\"\n\n", "\nfunc Describe() string {\n"
            "\treturn fmt.Sprintf(\"billing %d\", 1)\n}\n"),
    ".yml": ("# Deployment of the shop.\nversion: '3.8'\nservices:\n  web:\n    image: shop:1.4\n",
             "    ports:\n      - '8080:8080'\n"),
    ".yaml": ("# Application settings.\nserver:\n  port: 8080\n", "logging:\n  level: info\n"),
    ".ini": ("; Settings of the reporting job.\n[job]\nschedule = nightly\n\n",
             "\n[output]\nformat = csv\n"),
    ".cfg": ("# The uploader's settings.\n[uploader]\nbucket = shop-invoices\n",
             "region = eu-west-1\n"),
    ".properties": ("# Spring Boot settings\nserver.port=8080\nspring.application.name=shop\n"
                    "logging.level.root=INFO\n", "management.endpoints.web.exposure.include=*\n"
                    "# end of file, see the runbook for what each setting does\n"),
    ".sh": ("#!/usr/bin/env bash\n# Deploy the shop to staging.\nset -euo pipefail\n\n",
            "\n./scripts/migrate.sh\ndocker compose up -d\n"),
    ".md": ("# Operations notes\n\nHow the staging environment is wired, for the on-call.\n\n",
            "\nAsk in #ops before rotating anything.\n"),
    ".eml": ("From: Ann Ops <ann@shop.example>\nTo: dev@shop.example\nSubject: Re: staging "
             "access\nDate: Mon, 1 Dec 2025 10:00:00 +0000\nContent-Type: text/plain; "
             "charset=utf-8\n\nHere is what you asked for, quoted below.\n\n"
             "> On Friday Bob wrote:\n", "\nThanks,\nAnn\n"),
    "Makefile": ("# Build and deploy the shop.\n.PHONY: deploy test\n\n",
                 "\ntest:\n\tpytest -q\n"),
    "Dockerfile": ("FROM python:3.11-slim\nWORKDIR /app\nCOPY . /app\n",
                   "RUN pip install -r requirements.txt\nCMD [\"python\", \"-m\", \"shop\"]\n"),
    ".json": ("", ""),
    ".toml": ('[project]\nname = "shop"\nversion = "1.4.0"\n\n', '\n[tool.shop]\nregion = "eu"\n'),
    ".tf": ('resource "aws_instance" "web" {\n  ami = "ami-123456"\n}\n\n', ""),
    ".php": ("<?php\n// Mail settings of the shop.\nreturn [\n", "];\n"),
    ".rb": ("# The payment gateway's settings.\nmodule Shop\n", "end\n"),
    ".cs": ("namespace Shop;\n\npublic static class Settings\n{\n", "}\n"),
    ".java": ("package shop;\n\npublic final class Db {\n", "}\n"),
    ".xml": ("<?xml version=\"1.0\"?>\n<settings>\n  <servers>\n    <server>\n"
             "      <id>shop-releases</id>\n", "    </server>\n  </servers>\n</settings>\n"),
    ".http": ("### The orders API, for manual checks\n", "\n{\"limit\": 10}\n"),
    ".txt": ("Notes from the migration, kept for the postmortem.\n\n", "\nEnd of notes.\n"),
    ".c": ("#include <stdio.h>\n\n", "\nint main(void) { return 0; }\n"),
}


def _file(path: str, body: str) -> str:
    name = path.rsplit("/", 1)[-1]
    suffix = "." + name.rsplit(".", 1)[-1] if "." in name else name  # Dockerfile, Makefile
    head, tail = _AROUND[suffix]
    return head + body + tail


def _commented(block: str, prefix: str) -> str:
    return "".join(prefix + line + "\n" for line in block.rstrip("\n").split("\n"))


def _body(block: str) -> tuple[str, ...]:
    """The lines of a key block that are the key, not its armour, headers or the comment
    or quote marks in front of it (an escaped block in code has "\\n" for newlines)."""
    lines = (line.lstrip("#;/> \t") for line in block.replace("\\n", "\n").split("\n"))
    return tuple(line for line in lines
                 if len(line) >= 16 and "BEGIN" not in line and "END" not in line
                 and ":" not in line)


class _Tokens:
    """Fake tokens in the shapes of the real ones, prefixes joined at run time."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def chars(self, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
        return random_chars(self.rng, n, alphabet)

    def aws_id(self, prefix: str = "AK" + "IA") -> str:
        return prefix + self.chars(16, _UPPER)

    def aws_secret(self) -> str:
        return self.chars(40, _B64)

    def aws_session(self) -> str:
        return "IQoJb3JpZ2luX2Vj" + self.chars(300, _B64) + "=="

    def github(self, kind: str = "p") -> str:
        return "gh" + kind + "_" + self.chars(36)

    def github_pat(self) -> str:
        return "github" + "_pat_" + self.chars(22) + "_" + self.chars(59)

    def gitlab(self) -> str:
        return "gl" + "pat-" + self.chars(20)

    def npm(self) -> str:
        return "np" + "m_" + self.chars(36)

    def slack(self) -> str:
        digits = string.digits
        return ("xo" + "xb-" + self.chars(11, digits) + "-" + self.chars(12, digits) + "-"
                + self.chars(24, string.ascii_lowercase + digits))

    def slack_hook(self) -> str:
        return ("https://hooks.slack" + ".com/services/T" + self.chars(8, _UPPER) + "/B"
                + self.chars(8, _UPPER) + "/" + self.chars(24))

    def google(self) -> str:
        return "AI" + "za" + self.chars(35, _URLSAFE)

    def stripe(self, kind: str, n: int = 99) -> str:
        return kind + "_" + self.chars(n)

    def sendgrid(self) -> str:
        return "S" + "G." + self.chars(22, _URLSAFE) + "." + self.chars(43, _URLSAFE)

    def twilio(self) -> str:
        return "S" + "K" + self.chars(32, _HEX)

    def mailchimp(self) -> str:
        return self.chars(32, _HEX) + "-u" + "s12"

    def square(self) -> str:
        return "sq0" + "csp-" + self.chars(43, _URLSAFE)

    def discord(self) -> str:
        return "M" + self.chars(23, _URLSAFE) + "." + self.chars(6) + "." + self.chars(27)

    def telegram(self) -> str:
        return self.chars(10, string.digits) + ":" + "AA" + self.chars(33, _URLSAFE)

    def openai(self, project: bool = False) -> str:
        middle = "T3Blbk" + "FJ"
        if project:
            return "sk-" + "proj-" + self.chars(74) + middle + self.chars(74)
        return "s" + "k-" + self.chars(20) + middle + self.chars(20)

    def anthropic(self) -> str:
        return "sk-" + "ant-api03-" + self.chars(93, _URLSAFE) + "AA"

    def huggingface(self) -> str:
        return "h" + "f_" + self.chars(34, string.ascii_letters)

    def pypi(self) -> str:
        return "py" + "pi-AgEIcHlwaS5vcmc" + self.chars(100, _URLSAFE)

    def azure_storage(self) -> str:
        return self.chars(86, _B64) + "=="

    def azure_client_secret(self) -> str:
        return (self.chars(3) + self.chars(1, string.digits) + "Q" + "~"
                + self.chars(34, string.ascii_letters + string.digits + "_~.-"))

    def django(self) -> str:
        return "django-" + "insecure-" + self.chars(50, string.ascii_lowercase
                                                    + string.digits + "!@#$^&*-_=+")

    def bearer(self) -> str:
        return self.chars(48, _URLSAFE + ".")

    def basic(self, user: str) -> str:
        return base64.b64encode(f"{user}:{self.url_password()}".encode()).decode()

    def password(self, symbols: str = "!*._-") -> str:
        """A password as people make them: letters, digits and a symbol; it starts with a
        letter, so it means nothing to a shell or to YAML."""
        chars = [*self.chars(15), self.chars(1, string.digits), self.chars(1, symbols),
                 self.chars(1, string.ascii_uppercase)]
        self.rng.shuffle(chars)
        return "T" + "".join(chars)

    def url_password(self) -> str:
        return self.chars(8) + self.chars(1, string.digits) + self.chars(8)

    def key(self, label: str = "RSA PRIVATE KEY") -> str:
        return pem_block(label, self.rng)

    def encrypted_pem(self) -> str:
        label = "RSA PRIVATE KEY"
        body = "\n".join(base64.b64encode(self.rng.randbytes(48)).decode() for _ in range(5))
        return (f"{_DASHES}BEGIN {label}{_DASHES}\nProc-Type: 4,ENCRYPTED\n"
                f"DEK-Info: AES-128-CBC,{self.chars(32, '0123456789ABCDEF')}\n\n"
                f"{body}\n{_DASHES}END {label}{_DASHES}\n")

    def ssh2(self) -> str:
        """An RFC 4716 (ssh.com) private key: four dashes, a header, 70-column base64."""
        armour = "-" * 4
        body = base64.b64encode(self.rng.randbytes(300)).decode()
        lines = [body[i : i + 70] for i in range(0, len(body), 70)]
        return (f"{armour} BEGIN SSH2 ENCRYPTED PRIVATE KEY {armour}\n"
                'Comment: "2048-bit rsa, deploy@build"\n' + "\n".join(lines)
                + f"\n{armour} END SSH2 ENCRYPTED PRIVATE KEY {armour}\n")


# (what it is, where it is, the marker it must become or "" when the file is withheld,
# the lines it adds to the file with {s} where the fake goes, the fake)
_Row = tuple[str, str, str, str, Callable[["_Tokens"], str]]
_ROWS: tuple[_Row, ...] = (
    # -- shapes covered before issue #26 ------------------------------------------------
    ("aws key id in Python", "shop/aws_settings.py", "aws-key",
     'AWS_ACCESS_KEY_ID = "{s}"\n', lambda t: t.aws_id()),
    ("aws temporary key id in JSON", "deploy/role.json", "aws-key",
     '{"role": "uploader", "AccessKeyId": "{s}", "region": "eu-west-1"}\n',
     lambda t: t.aws_id("AS" + "IA")),
    ("aws secret key, quoted, in Python", "shop/storage.py", "aws-key",
     'aws_secret_access_key = "{s}"\n', lambda t: t.aws_secret()),
    ("github token in JS", "web/octokit.js", "github-token",
     'const client = new Octokit({ auth: "{s}" });\n', lambda t: t.github()),
    ("github app token in YAML", "ci/release.yml", "github-token",
     "    environment:\n      GH_APP_TOKEN: {s}\n", lambda t: t.github("s")),
    ("github fine-grained token in Markdown", "docs/ci.md", "github-token",
     "The CI bot uses `{s}` to open pull requests.\n", lambda t: t.github_pat()),
    ("gitlab token in a clone URL", "scripts/mirror.sh", "gitlab-token",
     "git clone https://oauth2:{s}@gitlab.example.com/shop/api.git\n", lambda t: t.gitlab()),
    ("npm token in a Dockerfile", "Dockerfile", "npm-token",
     'RUN echo "//registry.npmjs.org/:_authToken={s}" > ~/.npmrc\n', lambda t: t.npm()),
    ("npm token in a README", "docs/publish.md", "npm-token",
     "Publish with the automation token {s} (scoped to @shop).\n", lambda t: t.npm()),
    ("slack bot token in Python", "shop/notify.py", "slack-token",
     'SLACK_CLIENT = WebClient(token="{s}")\n', lambda t: t.slack()),
    ("slack webhook in JSON", "deploy/alerts.json", "slack-token",
     '{"channel": "#alerts", "webhook": "{s}"}\n', lambda t: t.slack_hook()),
    ("JWT in Markdown", "docs/api.md", "jwt", "    curl -H 'X-Session: {s}' /me\n",
     lambda t: jwt(t.rng)),
    ("JWT in JS", "web/session.js", "jwt", "const SESSION = '{s}';\n", lambda t: jwt(t.rng)),
    ("PEM key in a Markdown fence", "docs/tls.md", "private-key", "```\n{s}```\n",
     lambda t: t.key()),
    ("PEM key in a Python string", "shop/signing.py", "private-key",
     'SIGNING_KEY = """{s}"""\n', lambda t: t.key("EC PRIVATE KEY")),
    ("PKCS#8 key escaped in JSON", "deploy/jwt-issuer.json", "private-key",
     '{"issuer": "shop", "signing_key": "{s}"}\n',
     lambda t: t.key("PRIVATE KEY").replace("\n", "\\n")),
    ("OpenSSH key in Markdown", "docs/bastion.md", "private-key",
     "The bastion's key:\n\n{s}\n", lambda t: t.key("OPENSSH PRIVATE KEY")),
    ("encrypted PEM in a YAML block", "k8s/tls.yaml", "private-key", "tls:\n  key: |\n{s}",
     lambda t: _commented(t.encrypted_pem(), "      ")),
    ("PGP private key in Markdown", "docs/signing.md", "private-key",
     "Release signing key (do not share):\n\n{s}\n", lambda t: t.key("PGP PRIVATE KEY BLOCK")),
    ("postgres URL password in Python", "shop/db.py", "password",
     'DATABASE_URL = "postgres://shop:{s}@db.internal:5432/shop"\n',
     lambda t: t.url_password()),
    ("mongodb+srv password in JS", "web/db.js", "password",
     "const uri = 'mongodb+srv://app:{s}@cluster0.example.net/shop';\n",
     lambda t: t.url_password()),
    ("amqp password in properties", "config/queue.properties", "password",
     "spring.rabbitmq.addresses=amqp://shop:{s}@mq.internal:5672\n",
     lambda t: t.url_password()),
    ("ADO.NET connection string in C#", "src/Settings.cs", "password",
     '    public const string Db = "Server=db;Database=shop;User Id=shop;Password={s};";\n',
     lambda t: t.url_password()),
    ("basic-auth URL in shell", "scripts/fetch.sh", "password",
     "curl -fsS https://deploy:{s}@artifacts.example.com/shop.tar.gz -o shop.tgz\n",
     lambda t: t.url_password()),
    ("Google API key in JS", "web/maps.js", "google-api-key",
     "loadMaps({ key: '{s}', libraries: ['places'] });\n", lambda t: t.google()),
    ("Stripe live key (24) in Python", "shop/pay.py", "stripe-key",
     'stripe.api_key = "{s}"\n', lambda t: t.stripe("sk" + "_live", 24)),
    ("Stripe live key (current length) in Ruby", "config/stripe.rb", "stripe-key",
     '  Stripe.api_key = ENV.fetch("STRIPE_KEY", "{s}")\n', lambda t: t.stripe("sk" + "_live")),
    ("SendGrid key in Python", "shop/mail.py", "sendgrid-key",
     'MAILER = SendGridAPIClient("{s}")\n', lambda t: t.sendgrid()),
    ("Twilio key in Python", "shop/sms.py", "twilio-key",
     'SMS = Client("{s}", region="ie1")\n', lambda t: t.twilio()),
    ("Mailchimp key in PHP", "config/mail.php", "mailchimp-key",
     "    'mailchimp' => ['key' => '{s}'],\n", lambda t: t.mailchimp()),
    ("Square secret in Ruby", "config/square.rb", "square-secret",
     '  SQUARE = Square::Client.new(access_token: "{s}")\n', lambda t: t.square()),
    ("Discord bot token in JS", "web/bot.js", "discord-token", "client.login('{s}');\n",
     lambda t: t.discord()),
    ("Telegram bot token in Python", "shop/telegram.py", "telegram-token",
     'BOT = Bot("{s}")\n', lambda t: t.telegram()),
    ("OpenAI key in Python", "shop/assistant.py", "openai-key",
     'client = OpenAI(api_key="{s}")\n', lambda t: t.openai()),
    ("OpenAI project key in TS", "web/assistant.ts", "openai-key",
     "const openai = new OpenAI({ apiKey: '{s}' });\n", lambda t: t.openai(project=True)),
    ("PyPI token in a workflow", "ci/publish.yml", "pypi-token",
     "    environment:\n      TWINE_PASSWORD: {s}\n", lambda t: t.pypi()),
    ("Azure storage key in JSON", "deploy/storage.json", "azure-storage-key",
     '{"Storage": "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey={s};'
     'EndpointSuffix=core.windows.net"}\n', lambda t: t.azure_storage()),
    # -- what issue #26's pass found ----------------------------------------------------
    ("PEM key commented out with '# '", "shop/legacy_auth.py", "private-key",
     "# The old signing key, kept until the mobile app is gone:\n{s}",
     lambda t: _commented(t.key(), "# ")),
    ("PEM key commented out with '; '", "config/legacy.ini", "private-key", "{s}",
     lambda t: _commented(t.key("EC PRIVATE KEY"), "; ")),
    ("PEM key commented out with '// '", "src/tls.go", "private-key",
     "// Test key for the TLS handshake:\n{s}", lambda t: _commented(t.key("PRIVATE KEY"), "// ")),
    ("OpenSSH key quoted with '> ' in mail", "mail/deploy-key.eml", "private-key", "{s}",
     lambda t: _commented(t.key("OPENSSH PRIVATE KEY"), "> ")),
    ("PEM key quoted twice ('> > ') in mail", "mail/thread.eml", "private-key", "{s}",
     lambda t: _commented(t.key(), "> > ")),
    ("SSH2 (RFC 4716) private key in Markdown", "docs/legacy-ssh.md", "private-key",
     "The old build box's key:\n\n{s}\n", lambda t: t.ssh2()),
    ("SSH2 private key quoted in mail", "mail/ssh2.eml", "private-key", "{s}",
     lambda t: _commented(t.ssh2(), "> ")),
    ("redis password with an empty user", "k8s/cache.yaml", "password",
     "cache:\n  url: redis://:{s}@redis.internal:6379/0\n", lambda t: t.url_password()),
    ("Stripe test key in JS", "web/checkout.js", "stripe-key",
     "const stripe = require('stripe')('{s}');\n", lambda t: t.stripe("sk" + "_test")),
    ("Stripe restricted test key in Python", "shop/refunds.py", "stripe-key",
     'REFUNDS = StripeClient("{s}")\n', lambda t: t.stripe("rk" + "_test")),
    ("Azure AD client secret in JSON", "deploy/appsettings.json", "azure-client-secret",
     '{"AzureAd": {"ClientId": "shop-web", "Secret": "{s}"}}\n',
     lambda t: t.azure_client_secret()),
    ("Azure AD client secret without a keyword", "shop/graph.py", "azure-client-secret",
     'GRAPH = ConfidentialClientApplication("shop-web", "{s}")\n',
     lambda t: t.azure_client_secret()),
    ("JDBC ?password= in properties", "config/jdbc.properties", "password",
     "spring.datasource.url=jdbc:postgresql://db:5432/shop?user=shop&password={s}\n",
     lambda t: t.password("!*.-")),
    ("JDBC &password= in Java", "src/Db.java", "password",
     '    static final String URL = "jdbc:mysql://db:3306/shop?useSSL=true&user=shop'
     '&password={s}";\n', lambda t: t.password("!*.-")),
    ("password: in YAML", "config/application.yaml", "password",
     "spring:\n  datasource:\n    username: shop\n    password: {s}\n", lambda t: t.password()),
    ("password: quoted in docker-compose", "docker-compose.yml", "password",
     '    environment:\n      POSTGRES_PASSWORD: "{s}"\n', lambda t: t.password()),
    ("password = in INI", "config/reports.ini", "password",
     "[database]\nhost = db.internal\nuser = reports\npassword = {s}\n", lambda t: t.password()),
    ("password= in properties", "config/mail.properties", "password",
     "spring.mail.host = smtp.example.com\nspring.mail.port = 587\nspring.mail.username = shop\n"
     "spring.mail.properties.mail.smtp.starttls.enable = true\nspring.mail.password={s}\n",
     lambda t: t.password()),
    ("export DB_PASSWORD= in shell", "scripts/backup.sh", "password",
     "export DB_PASSWORD={s}\npg_dump shop > shop.sql\n", lambda t: t.password()),
    ("export with quotes in shell", "scripts/restore.sh", "password",
     "export PGPASSWORD='{s}'\npsql -h db shop < shop.sql\n", lambda t: t.password()),
    ("Django SECRET_KEY", "shop/settings.py", "secret", "SECRET_KEY = '{s}'\n",
     lambda t: t.django()),
    ("Anthropic key in Python", "shop/claude.py", "anthropic-key",
     'client = anthropic.Anthropic(api_key="{s}")\n', lambda t: t.anthropic()),
    ("Anthropic key in Markdown", "docs/llm.md", "anthropic-key",
     "Staging uses {s} until the org key lands.\n", lambda t: t.anthropic()),
    ("Hugging Face token in Markdown", "docs/models.md", "huggingface-token",
     "    huggingface-cli login --token {s}\n", lambda t: t.huggingface()),
    ("Hugging Face token in Python", "shop/models.py", "huggingface-token",
     'snapshot_download("shop/ranker", token="{s}")\n', lambda t: t.huggingface()),
    ("Authorization: Bearer in a curl line", "docs/orders.md", "authorization",
     "    curl -H 'Authorization: Bearer {s}' https://api.example.com/orders\n",
     lambda t: t.bearer()),
    ("Authorization: Bearer in an HTTP file", "api/orders.http", "authorization",
     "GET https://api.example.com/orders\nAuthorization: Bearer {s}\n", lambda t: t.bearer()),
    ("Authorization header in a Python dict", "shop/client.py", "authorization",
     'HEADERS = {"Authorization": "Bearer {s}", "Accept": "application/json"}\n',
     lambda t: t.bearer()),
    ("Authorization: Basic in an HTTP file", "api/admin.http", "authorization",
     "GET https://api.example.com/admin\nAuthorization: Basic {s}\n", lambda t: t.basic("shop")),
    ("Authorization: Basic quoted in mail", "mail/basic.eml", "authorization",
     "> Authorization: Basic {s}\n", lambda t: t.basic("ops")),
    ("aws_session_token = in a config", "deploy/boto.cfg", "secret",
     "aws_session_token = {s}\n", lambda t: t.aws_session()),
    ("AWS_SESSION_TOKEN= in a Dockerfile", "deploy/Dockerfile", "secret",
     "ENV AWS_SESSION_TOKEN={s}\n", lambda t: t.aws_session()),
    ("unquoted AWS secret in shell", "scripts/upload.sh", "secret",
     "export AWS_SECRET_ACCESS_KEY={s}\naws s3 cp shop.tgz s3://shop-releases/\n",
     lambda t: t.aws_secret()),
    # -- assignments in other languages and formats ------------------------------------
    ("password in a JSON config", "config/db.json", "password",
     '{"host": "db.internal", "user": "shop", "password": "{s}"}\n', lambda t: t.password()),
    ("Go var assignment", "src/billing.go", "password", 'var dbPassword = "{s}"\n',
     lambda t: t.password()),
    ("PHP array", "config/smtp.php", "password", "    'smtp_password' => '{s}',\n",
     lambda t: t.password()),
    ("TOML api_key", "config/shop.toml", "secret", '[search]\napi_key = "{s}"\n',
     lambda t: t.chars(40)),
    ("Terraform client_secret", "infra/oauth.tf", "secret",
     'variable "oauth" {\n  default = {\n    client_secret = "{s}"\n  }\n}\n',
     lambda t: t.chars(32)),
    ("typed pydantic setting", "shop/config.py", "secret",
     'class Settings(BaseSettings):\n    api_key: str = "{s}"\n', lambda t: t.chars(32)),
    ("Maven settings.xml password", "config/settings.xml", "password",
     "      <username>deployer</username>\n      <password>{s}</password>\n",
     lambda t: t.password()),
    ("token in a URL query", "docs/export.md", "secret",
     "Download from https://api.example.com/export?format=csv&access_token={s}\n",
     lambda t: t.chars(40, _URLSAFE)),
    ("X-API-Key header in an HTTP file", "api/search.http", "secret",
     "GET https://api.example.com/search?q=shoes\nX-API-Key: {s}\n", lambda t: t.chars(36)),
    ("password quoted in mail", "mail/db.eml", "password", "> password: {s}\n",
     lambda t: t.password()),
    ("Google OAuth client secret in YAML", "config/oauth.yaml", "secret",
     "oauth:\n  client_id: shop-web.apps.example.com\n  client_secret: {s}\n",
     lambda t: "GOCSPX-" + t.chars(28, _URLSAFE)),
    # -- tokens in file and folder names -----------------------------------------------
    ("a file named after a GitHub token", "tokens/{s}.txt", "", "not a secret\n",
     lambda t: t.github()),
    ("a file named after an AWS key id", "keys/{s}.json", "", '{"note": "rotated"}\n',
     lambda t: t.aws_id()),
    ("a folder named after a GitLab token", "backup-{s}/notes.md", "",
     "What the backup holds.\n", lambda t: t.gitlab()),
)


def canaries(seed: int = 26) -> list[Canary]:
    """The corpus, the same for the same seed: one canary a file."""
    tokens = _Tokens(random.Random(seed))
    corpus = []
    for name, where, kind, lines, fake in _ROWS:
        secret = fake(tokens)
        path = where.replace("{s}", secret)
        parts = _body(secret) if "PRIVATE KEY" in secret else (secret,)
        corpus.append(Canary(name, path, _file(path, lines.replace("{s}", secret)), parts,
                             kind))
    for name, path, lines, parts, kind in positioned(tokens.rng):
        corpus.append(Canary(name, path, _file(path, lines), parts, kind))
    return corpus


# Ordinary code and data that look like secrets to a careless rule. Each must come back
# with nothing redacted. Built from literals: none of it is a credential.
NEGATIVES: dict[str, str] = {
    "ok/login.py": (
        "import os\n\n\ndef login(request, password=None, host='db'):\n"
        "    password = get_password()\n"
        "    token = request.headers[\"Authorization\"]\n"
        "    api_key = os.environ.get(\"API_KEY\")\n"
        "    secret = secrets.token_hex(32)\n"
        "    password = password or self.password\n"
        "    token: str = \"\"\n"
        "    password: Optional[str] = None\n"
        "    if password == confirm_password:\n"
        "        return authenticate(username=user, password=password)\n"
        "    header = f\"Bearer {token}\"\n"
        "    other = \"Bearer \" + token\n"
        "    url = f\"postgres://{user}:{password}@{host}/db\"\n"
        "    return url, header, other, api_key, secret\n"),
    "ok/settings.py": (
        'SECRET_KEY = os.environ["SECRET_KEY"]\nSECRET_KEY = get_random_secret_key()\n'
        'PASSWORD_RESET_URL = "/accounts/password/reset/"\nMAX_PASSWORD_LENGTH = 128\n'
        'PASSWORD_HASHERS = ["django.contrib.auth.hashers.Argon2PasswordHasher"]\n'
        'AUTH_TOKEN_HEADER = "Authorization"\nTOKEN_TYPE = "bearer"\n'
        'DATABASES = {"default": {"PASSWORD": os.getenv("DB_PASSWORD", "")}}\n'
        'password_field = "password"\nplaceholder = "Enter your password"\n'),
    "ok/tokenizer.py": (
        'tokenizer = Tokenizer(bos_token="<s>", eos_token="</s>", unk_token="<unk>",\n'
        '                      mask_token="[MASK]", pad_token="[PAD]", cls_token="[CLS]")\n'
        "max_tokens = 4096\nnum_tokens = len(tokens)\n"
        "hf_hub_download(repo_id='shop/ranker', filename='model.onnx')\n"),
    "ok/web.js": (
        "const token = localStorage.getItem('token');\n"
        "const password = document.getElementById('password').value;\n"
        "const apiKey = process.env.API_KEY;\n"
        "fetch('/api', { headers: { Authorization: `Bearer ${token}` } });\n"
        "const secret = config.secret;\n"),
    "ok/main.go": ('package main\n\nvar password = os.Getenv("DB_PASSWORD")\n'
                   'token := r.Header.Get("Authorization")\n'),
    "ok/compose.yml": (
        "services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: ${DB_PASSWORD}\n"
        "      REDIS_PASSWORD: ${REDIS_PASSWORD:-}\n      password: $DB_PASSWORD\n"
        "      secret: '{{ vault_secret }}'\n      token: \"{{ .Values.token }}\"\n"
        "      api_key: ${{ secrets.API_KEY }}\n      password: <password>\n"
        "      password: \"\"\n      password: null\n      password: *db_password\n"
        "      password: changeme\n      secret_key: your-secret-key-here\n"),
    "ok/app.ini": ("[db]\npassword = %(db_password)s\npassword =\ntoken = ${TOKEN}\n"
                   "secret = <secret>\n"),
    "ok/Dockerfile": ("FROM python:3.11\nARG DB_PASSWORD\nENV DB_PASSWORD=$DB_PASSWORD\n"
                      "RUN --mount=type=secret,id=npm cat /run/secrets/npm\n"),
    "ok/deploy.sh": (
        "#!/bin/sh\nexport DB_PASSWORD=\"$(vault read -field=password secret/db)\"\n"
        "export PGPASSWORD=$DB_PASSWORD\ncurl -u \"$USER:$PASS\" https://example.com\n"
        "curl -H \"Authorization: Bearer $TOKEN\" https://example.com\n"
        "curl -H 'Authorization: Bearer <token>' https://example.com\n"),
    "ok/urls.md": (
        "Connect with `redis://localhost:6379/0` or `redis://cache:6379`.\n"
        "JDBC: `jdbc:mysql://db:3306/shop?useSSL=false&serverTimezone=UTC`.\n"
        "The docs write https://user:pass@host and `AKIAIOSFODNN7EXAMPLE`.\n"
        "Set `password: ${DB_PASSWORD}` in the chart.\n"),
    "ok/package-lock.json": (
        '{"packages": {"node_modules/left-pad": {"version": "1.3.0", "integrity": '
        '"sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQsSJw2hzf0ZFmHkWHePj7gt2kgZxUDDt3mv'
        'xzx9FGCq6CXw=="}}}\n'),
    "ok/poetry.lock": (
        '[[package]]\nname = "click"\nversion = "8.1.7"\nfiles = [\n    {file = '
        '"click-8.1.7.tar.gz", hash = "sha256:ca9853ad459e787e2192211578cc907e7594e294c7ccc8'
        '34310a2b3a5d3fa5d7"},\n]\n'),
    "ok/requirements.txt": ("click==8.1.7 \\\n    --hash=sha256:ae74fb96c20a0277a1d615f1e"
                            "4d73c8414f5a98db8b799a7931d1582f3390c28\n"),
    "ok/ids.py": (
        'REQUEST_ID = "3f2b9c1e-8d4a-4e6f-9b7a-1c2d3e4f5a6b"\n'
        'COMMIT = "9fceb02d0ae598e95dc970b74767f19372d61af8"\n'
        'PNG_HEADER = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA'
        '60e6kgAAAABJRU5ErkJggg=="\n'
        'HELLO = b"SGVsbG8sIHdvcmxkISBUaGlzIGlzIGp1c3QgdGVzdCBkYXRhLg=="\n'
        'password_hash = "pbkdf2_sha256$600000$abc$def"\n'
        'primary_key = "order_id"\nmonkey = "banana republic"\n'),
    "ok/redacted.txt": ("password = [REDACTED:password]\nGITHUB_TOKEN = \"[REDACTED:github-"
                        "token]\"\nAuthorization: Bearer [REDACTED:authorization]\n"),
    "ok/prose.md": (
        "# Passwords\n\nYour password: at least 12 characters.\n"
        "password: Mot de passe\ntoken: the unit of text a model reads\n"
        "The secret: nobody reads the docs.\n| password | string | required |\n"),
    "ok/form.html": ('<input type="password" name="password" autocomplete="current-password">\n'
                     '<label for="token">API token</label>\n'),
    # What a first cut of the assignment rules flagged in site-packages.
    "ok/site_packages.py": (
        "def sign(self, private_key: rsa.RSAPrivateKey, f_priv: _FragList) -> None: ...\n"
        "MLKEM768X25519PrivateKey = rust_openssl.hpke.MLKEM768X25519PrivateKey\n"
        "def __init__(self, passwd: HTTPPasswordMgr | None = None) -> None: ...\n"
        "def revoke(token: AccessTokenT | RefreshTokenT,\n           backend: \"Backend\", "
        'private_key: "_RSAPrivateKey") -> None: ...\n'
        'elif token == "#bygroup":\n    pass\n'
        "# cached token: `get_token()` may refresh an OAuth token\n"
        '#     verify_token="eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...",\n'
        "# First pass: decided_mask==0, every element participates.\n"
        '#     api_key="username:password",\n'
        'URI = "postgresql://postgres:postgres@localhost:5432/pandas"\n'
        ":type passphrase: :py:data:`bytes`\n"
        '`{"access_token": "hf_jwt_\u2026", "token_type": "bearer"}`\n'),
    "ok/pass_manager.h": "using GraphPass = std::function<void(std::shared_ptr<Graph>&)>;\n",
    "ok/assembly.xml": ('<assemblyIdentity name="Microsoft.VC90.CRT" version="9.0.21022.8" '
                        'publicKeyToken="1fc8b3b9a1e18e3b"/>\n'),
    **ORDINARY_INLINE,  # issue #47: `x=1 y=2 make`, `FOO=${BAR} cmd`, placeholders
    "ok/main.tf": ('resource "aws_db_instance" "db" {\n  password = var.db_password\n'
                   "  api_key = random_password.api.result\n}\n"),
}


def write_canaries(root: Path, corpus: list[Canary], negatives: dict[str, str]) -> None:
    for rel, text in [*((c.path, c.text) for c in corpus), *negatives.items()]:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def windows(part: str, width: int = 12) -> Iterator[str]:
    """Every `width`-character piece of `part`: a canary cut in two by a marker that
    ends too early still leaks its tail."""
    if len(part) <= width:
        yield part
        return
    for start in range(len(part) - width + 1):
        yield part[start : start + width]


def leaks(text: str, corpus: list[Canary]) -> list[str]:
    """The names of the canaries some piece of which is in `text`."""
    # One pass over `text` per window width with a set of every canary's windows: a
    # substring search per window took ~3.4 s for the 216 canaries over 1.1 MB served.
    owners: dict[str, set[str]] = {}
    for canary in corpus:
        for part in canary.parts:
            for window in windows(part):
                owners.setdefault(window, set()).add(canary.name)
    found: set[str] = set()
    for width in {len(window) for window in owners}:
        for start in range(len(text) - width + 1):
            found |= owners.get(text[start : start + width], set())
    return [c.name for c in corpus if c.name in found]
