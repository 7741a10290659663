#!/usr/bin/env python3
"""A slow stand-in for @modelcontextprotocol/server-filesystem, on the official
Python MCP SDK (peers/.venv): a stdio server whose only tool,
``list_directory``, waits ``DELAY_MS`` milliseconds and then answers like the
filesystem server does (structuredContent ``{"content": "<one line per
entry>"}``), listing three entries.

Usage: slow_list_server.py DELAY_MS [TAG]

TAG is ignored; tests pass a path unique to them so they can find this
process in /proc (and check that it was terminated).
"""

import sys

import anyio
from mcp.server import MCPServer

delay_ms = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
server = MCPServer("slowList", version="0.0.0")


@server.tool()
async def list_directory(path: str) -> dict:
    """Lists a directory, slowly."""
    await anyio.sleep(delay_ms / 1000)
    return {"content": "[FILE] a.txt\n[FILE] b.txt\n[DIR] sub"}


if __name__ == "__main__":
    server.run("stdio")
