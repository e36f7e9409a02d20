"""The `semlith` command: parse, call one library method, format. No logic lives here.

Commands live by topic: `search` (search, symbol, read), `graph` (neighbors, impact,
path), `index` (index, forget,
watch), `info` (files, stats, stores, status, languages, models), `daemon` (serve,
stop, key, mcp), `portal` (the web page's link), `setup` (connecting an MCP client),
`doctor` (what is wrong, and the fix). Each imports only `semlith.library`,
`semlith.types` and the CLI's own modules at the top; anything heavier is imported
inside the command.
"""

from semlith.cli import (  # noqa: F401 - they register commands
    daemon,
    doctor,
    graph,
    index,
    info,
    portal,
    search,
    setup,
)
from semlith.cli.base import Env, main

__all__ = ["Env", "main"]
