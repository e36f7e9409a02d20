"""The `semlith` command: parse, call one library method, format. No logic lives here.

Commands live by topic: `search` (search, symbol, read, outline), `graph` (neighbors,
impact, path, brief), `index` (index, forget, watch, attach), `info` (files, stats,
stores, status, models, languages, formats), `daemon` (serve, stop, key, mcp),
`portal` (the web page's link), `setup` (connecting an MCP client), `doctor` (what is
wrong, and the fix). Each imports only `semlith.library`, `semlith.types` and the
CLI's own modules at the top; anything heavier is imported inside the command. A
command's module is itself imported only when the command runs (`base.COMMAND_MODULES`).
"""

from semlith.cli.base import Env, main  # its commands' modules load as they are asked for

__all__ = ["Env", "main"]
