"""What `Library.agents()` answers: how agents reach this machine's daemon.

The MCP endpoint, the file that holds the agent key (the key itself is never shown: a
page or a log that printed it would hand it to anyone who reads them), how to rotate it,
and for each client `semlith setup` knows whether its user config already names semlith.
"""

from __future__ import annotations

from pathlib import Path

from semlith.base.home import AGENT_KEY
from semlith.base.settings import Settings
from semlith.setup.clients import CLIENTS, Client, Places, entry_in
from semlith.setup.configfile import parse
from semlith.types.activity import Agents, ClientEntry

ROTATE = ("Stop the daemon (`semlith stop`), delete {key}, and start it again (`semlith "
          "serve`): a new key is made. Clients started through `semlith mcp` read the new "
          "key themselves; HTTP clients need SEMLITH_AGENT_KEY set to the new one "
          "(`semlith key show` prints it, in a terminal).")


def describe_agents(settings: Settings, port: int, places: Places | None = None) -> Agents:
    places = places or Places.here()
    key_file = settings.home / AGENT_KEY
    clients = tuple(ClientEntry(c.name, c.title, str(c.user_file(places)),
                                configured(c, Path(c.user_file(places))))
                    for c in CLIENTS if c.user_file is not None)  # not those without a file
    return Agents(f"http://127.0.0.1:{port}/mcp", str(key_file),
                  ROTATE.format(key=key_file), clients)


def configured(client: Client, path: Path) -> bool:
    """Whether `path` (the client's config) holds a semlith server entry."""
    try:
        data = parse(path.read_text(encoding="utf-8-sig"), client.syntax, path)
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return entry_in(client, data) is not None
