"""Every position an inline assignment takes in a line (issue #47, finding 2).

`PGPASSWORD=... psql`, `docker run -e DB_PASSWORD=... image`, `API_TOKEN=... node app.js`:
a secret assigned in front of a command leaked through every channel, because a value
without quotes was redacted only when nothing but a separator followed it. Each shape
here is put in each position a line gives it (the start, after `export`, `env` or
`sudo`, beside other assignments, as a `docker run -e` or `--build-arg`, at the end, in
quotes, inside a string of code, in a comment, in YAML, a Dockerfile, a Makefile), in a
file of the type that position is written in. `tests/canaries.py` adds them to the
corpus; `ORDINARY_INLINE` is the shell and code of the same shape that must be left alone.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

from tests.secret_fixtures import random_chars

_B64 = string.ascii_letters + string.digits + "+/"


@dataclass(frozen=True, slots=True)
class Shape:
    """A secret-named variable and the command it is set for."""

    slug: str
    key: str
    command: str
    kind: str  # the marker in most positions
    quoted_kind: str  # the marker when the value stands in quotes of its own


@dataclass(frozen=True, slots=True)
class Position:
    """Where the assignment stands: `template` holds {key}, {value}, {value2} (a second
    secret on the line) and {command}; `path` is the file it is written in."""

    slug: str
    path: str
    template: str
    quoted: bool = False  # the value has quotes of its own


# The shapes issue #47 lists (`docker run -e` is a position of each).
SHAPES = (
    Shape("pgpassword", "PGPASSWORD", "psql -h db.internal shop", "password", "password"),
    Shape("db-password", "DB_PASSWORD", "./run.sh --migrate", "password", "password"),
    Shape("api-token", "API_TOKEN", "node app.js", "secret", "secret"),
    # In its own quotes detect-secrets' AWS plugin knows the 40-character secret first.
    Shape("aws-secret", "AWS_SECRET_ACCESS_KEY", "python upload.py", "secret", "aws-key"),
)

POSITIONS = (
    Position("start", "run/start.sh", "{key}={value} {command}\n"),
    Position("start-tab", "run/tab.sh", "{key}={value}\t{command}\n"),
    Position("indented", "run/indented.sh", "if [ -n \"$CI\" ]; then\n  {key}={value} "
             "{command}\nfi\n"),
    Position("export-then-command", "run/export.sh", "export {key}={value} && {command}\n"),
    Position("export-several", "run/export-several.sh",
             "export {key}={value} LOG_LEVEL=debug\n{command}\n"),
    Position("env", "run/env.sh", "env {key}={value} {command}\n"),
    Position("env-ignore", "run/env-i.sh", "exec env -i HOME=/srv {key}={value} {command}\n"),
    Position("sudo", "run/sudo.sh", "sudo -u shop {key}={value} {command}\n"),
    Position("after-an-assignment", "run/after.sh", "LANG=C.UTF-8 {key}={value} {command}\n"),
    Position("before-an-assignment", "run/before.sh",
             "{key}={value} LOG_LEVEL=debug {command}\n"),
    Position("two-on-a-line", "run/two.sh", "{key}={value} BACKUP_{key}={value2} {command}\n"),
    Position("docker-run-e", "run/docker.sh",
             "docker run --rm -e {key}={value} -p 8080:8080 shop:1.4 {command}\n"),
    Position("docker-run-env", "run/docker-env.sh",
             "docker run --env {key}={value} --env LOG_LEVEL=debug shop:1.4\n"),
    Position("docker-build-arg", "run/build.sh",
             "docker build --build-arg {key}={value} -t shop:1.4 .\n"),
    Position("flag", "run/flag.sh", "./shop-server --db-url=postgres://db/shop "
             "--{flag}={value} --port 8080\n"),
    Position("end", "run/end.sh", "{command} {key}={value}\n"),
    Position("continued", "run/continued.sh", "{key}={value} \\\n  {command}\n"),
    Position("single-quoted", "run/single.sh", "{key}='{value}' {command}\n", quoted=True),
    Position("double-quoted", "run/double.sh", '{key}="{value}" {command}\n', quoted=True),
    Position("sh-c", "run/sh-c.sh", "sh -c '{key}={value} {command}'\n"),
    Position("python-string", "shop/run.py",
             'subprocess.run("{key}={value} {command}", shell=True, check=True)\n'),
    Position("js-template", "web/run.js", "execSync(`{key}={value} {command}`);\n"),
    Position("shell-comment", "run/comment.sh", "# for a manual run: {key}={value} {command}\n"),
    Position("commented-out", "run/commented.sh", "#{key}={value} {command}\n"),
    Position("code-comment", "shop/comment.go", "// run with {key}={value} {command}\n"),
    Position("markdown-code", "docs/run.md", "Run `{key}={value} {command}` once.\n"),
    Position("markdown-block", "docs/block.md", "```sh\n{key}={value} {command}\n```\n"),
    Position("yaml-run", "ci/deploy.yml", "    steps:\n      - run: {key}={value} {command}\n"),
    Position("yaml-list", "deploy/compose.yml",
             "    environment:\n      - {key}={value}\n      - LOG_LEVEL=debug\n"),
    Position("yaml-command", "k8s/job.yaml",
             '      command: ["sh", "-c", "{key}={value} {command}"]\n'),
    Position("dockerfile-env", "Dockerfile", "ENV {key}={value} APP_ENV=production\n"),
    Position("dockerfile-run", "build/Dockerfile", "RUN {key}={value} {command}\n"),
    Position("makefile", "Makefile", "deploy:\n\t{key}={value} {command}\n"),
)


def _value(rng: random.Random, shape: Shape) -> str:
    """A literal as people set one: 40 base64 characters for AWS, else letters, digits and
    a symbol that means nothing to a shell."""
    if shape.slug == "aws-secret":
        return "w" + random_chars(rng, 39, _B64)
    chars = [*random_chars(rng, 14), random_chars(rng, 1, string.digits),
             random_chars(rng, 1, "._-"), random_chars(rng, 1, string.ascii_uppercase)]
    rng.shuffle(chars)
    return "P" + "".join(chars)


def positioned(rng: random.Random) -> list[tuple[str, str, str, tuple[str, ...], str]]:
    """(name, path, text, the secrets in it, marker) for every shape in every position."""
    rows = []
    for shape in SHAPES:
        for position in POSITIONS:
            value, value2 = _value(rng, shape), _value(rng, shape)
            text = position.template.format(key=shape.key, value=value, value2=value2,
                                            command=shape.command,
                                            flag=shape.key.lower().replace("_", "-"))
            secrets = (value, value2) if "{value2}" in position.template else (value,)
            folder, _, name = position.path.rpartition("/")
            path = f"inline/{shape.slug}/{folder}/{name}".replace("//", "/")
            rows.append((f"{shape.key} {position.slug}", path, text, secrets,
                         shape.quoted_kind if position.quoted else shape.kind))
    return rows


# Shell and code of the same shape that is not a secret: each must come back as it is.
ORDINARY_INLINE: dict[str, str] = {
    "ok/inline.sh": (
        "x=1 y=2 make\n"
        "PATH=$PATH:bin cmd\n"
        "FOO=${BAR} cmd\n"
        "CC=clang CFLAGS=-O2 ./configure --prefix=/usr/local\n"
        "DB_PASSWORD=$DB_PASSWORD ./run.sh\n"
        "PGPASSWORD=${PGPASSWORD:-} psql -h db\n"
        "API_TOKEN=$(cat /run/secrets/api_token) node app.js\n"
        "API_TOKEN=\"$(vault read -field=token secret/api)\" node app.js\n"
        "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }} gh release create v1.4\n"
        "AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY python upload.py\n"
        "DB_PASSWORD=changeme ./run.sh\n"
        "DB_PASSWORD=your-password-here ./run.sh\n"
        "API_TOKEN=<your-api-token> node app.js\n"
        "PGPASSWORD=postgres psql -h localhost\n"
        "DB_PASSWORD=DB_PASSWORD_PLACEHOLDER ./run.sh\n"
        "TOKEN_FILE=/run/secrets/token PASSWORD_MIN_LENGTH=12 ./serve\n"
        "SECRET_KEY_BASE=$(bin/rails secret) bin/rails server\n"
        "docker run -e DB_PASSWORD -e API_TOKEN --env-file .env shop:1.4\n"
        "docker run -e DB_PASSWORD=$DB_PASSWORD shop:1.4\n"
        # Placeholders as image docs write them: the 30 distinct secret-named `NAME=value
        # cmd` in docker-library/docs, moby and ohmyzsh are all of this kind.
        "docker run --name db -e MYSQL_ROOT_PASSWORD=my-secret-pw -d mysql:8\n"
        "docker run -e POSTGRES_PASSWORD=mysecretpassword postgres\n"
        "docker run -e MARIADB_PASSWORD=my_cool_secret --env MARIADB_USER=app mariadb\n"
        "docker run -e ESPOCRM_ADMIN_PASSWORD=your_admin_password \\\n"
        "env -u API_TOKEN node app.js\n"
        "NODE_OPTIONS=--max-old-space-size=4096 npm run build\n"
        "./server --password-file=/etc/shop/db.pass --token-ttl=3600 --port 8080\n"
        "make deploy PASSWORD_STORE_DIR=~/.password-store\n"),
    "ok/inline.py": (
        "session_token=token_from_header if header else None\n"
        "connect(password=password_field, host=db_host)\n"
        "if token==expected_token and user:\n"
        "kwargs = dict(password=settings.DB_PASSWORD or default_password)\n"),
}
