"""The daemon and its adapters: the HTTP app (`/mcp`, `/api`, `/healthz`, the portal),
the MCP tools over one `Library` each, the stdio proxy, and `semlith serve`'s process.

The tools (tools.py, graph_tools.py, registered in registry.py) and the routes (api.py,
portal/routes.py) parse, call one library method and format; `/api` is derived from the
protocol by `semlith/wire.py`.
"""
