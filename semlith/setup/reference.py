"""Every client's files, snippets and caveats in Markdown: the generated part of
docs/clients.md (`scripts/gen_docs.py`), and what `semlith setup --docs` prints."""

from __future__ import annotations

from semlith.setup.clients import CLIENTS, EXAMPLE, Client, locations
from semlith.setup.configfile import render


def reference(port: int = 7365) -> str:
    parts = []
    for client in CLIENTS:
        fence = client.syntax.value
        parts += [f"### {client.title}\n", *_where(client),
                  f"```{fence}\n{render(client.stdio(EXAMPLE), client.syntax)}```\n"]
        if client.http is not None:
            http = client.http(f"http://127.0.0.1:{port}/mcp")
            parts.append(f"with `--http`:\n\n```{fence}\n{render(http, client.syntax)}```\n")
        parts += [f"{note}\n" for note in client.notes]
        parts.append("Documented at: " + ", ".join(client.sources) + "\n")
    return "\n".join(parts)


def _where(client: Client) -> list[str]:
    if client.user_file is None:
        return [f"`semlith setup {client.name}` prints the entry to paste into "
                f"{client.settings}:\n"]
    where = ", ".join(f"{system} `{path}`" for system, path in locations(client).items())
    project = f"`DIR/{client.project_file}`" if client.project_file else "none"
    return [f"`semlith setup {client.name}` prints, `--write` merges into:\n",
            f"- user config: {where}",
            f"- project config (`--project DIR`): {project}",
            (f"- the key in the HTTP form: {client.key}\n" if client.http else
             f"- no HTTP form: {client.key}\n")]
