#!/usr/bin/env python3
"""A scripted session on the official Python MCP SDK (``mcp``, pinned in
peers/requirements.txt): connects to one server over stdio, lists its tools
and resources, then runs steps in order, printing one JSON object per step:

    {"event": "tools", "tools": [{"name": ..., "outputSchema": {...}}, ...]}
    {"event": "resources", "resources": [{"uri": ..., "name": ..., "mimeType": ...}, ...]}
    {"event": "call", "step": N, "name": ..., "result": {...}, "schemaErrors": [...], "seconds": ...}
    {"event": "call", "step": N, "name": ..., "error": {"code": ..., "message": ...}}
    {"event": "read", "step": N, "uri": ..., "text": ...}
    {"event": "wrote", "step": N, "path": ...}
    {"event": "done"}

Steps (a JSON array, ``--steps JSON|-``):

    {"call": NAME, "arguments": {...}}   a tool call; a result with
                                         structuredContent is validated against
                                         the tool's outputSchema (jsonschema)
                                         and the errors listed
    {"write": PATH, "text": TEXT}        writes a file (between calls: the agent
                                         editing a graph)
    {"read": URI}                        resources/read

Usage:
    python_session.py --steps JSON|- [--timeout SECS] [--cwd DIR] --stdio COMMAND [ARG...]

Exit status: 0 when every step ran (a tool error, ``isError: true``, is a
result), 1 otherwise with {"event": "fatal"} and the reason on stderr.
"""

from __future__ import annotations

import json
import pathlib
import sys
import traceback

import time

import anyio
import jsonschema
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

# The same lines as the one-shot client's (this directory is on the path).
from python_client import dump, emit


def parse_args(argv: list[str]) -> dict:
    opts: dict = {"timeout": 600.0, "cwd": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--stdio":
            opts["stdio"] = argv[i + 1 :]
            break
        if a == "--steps":
            text = sys.stdin.read() if argv[i + 1] == "-" else argv[i + 1]
            opts["steps"] = json.loads(text)
        elif a == "--timeout":
            opts["timeout"] = float(argv[i + 1])
        elif a == "--cwd":
            opts["cwd"] = argv[i + 1]
        else:
            raise SystemExit(f"python_session: unknown argument {a!r}\n{__doc__}")
        i += 2
    if not opts.get("stdio") or "steps" not in opts:
        raise SystemExit(f"python_session: --steps and --stdio COMMAND are required\n{__doc__}")
    return opts


async def session(opts: dict) -> None:
    command, *args = opts["stdio"]
    server = StdioServerParameters(command=command, args=args, cwd=opts["cwd"])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=opts["timeout"]) as s:
            await s.initialize()
            tools = [dump(t) for t in (await s.list_tools()).tools]
            schemas = {t["name"]: t.get("outputSchema") for t in tools}
            emit({"event": "tools", "tools": tools})
            resources = (await s.list_resources()).resources
            emit({"event": "resources", "resources": [dump(r) for r in resources]})
            for n, step in enumerate(opts["steps"]):
                began = time.monotonic()
                if "write" in step:
                    path = pathlib.Path(opts["cwd"] or ".") / step["write"]
                    path.write_text(step["text"])
                    emit({"event": "wrote", "step": n, "path": step["write"], "seconds": 0})
                elif "read" in step:
                    contents = (await s.read_resource(step["read"])).contents
                    emit({"event": "read", "step": n, "uri": step["read"], "text": contents[0].text,
                          "seconds": time.monotonic() - began})
                else:
                    name = step["call"]
                    line = {"event": "call", "step": n, "name": name}
                    try:
                        result = dump(await s.call_tool(name, step.get("arguments", {})))
                        line["result"] = result
                        schema = schemas.get(name)
                        errors = []
                        if "structuredContent" in result and schema is not None:
                            validator = jsonschema.Draft202012Validator(schema)
                            errors = [e.message for e in validator.iter_errors(result["structuredContent"])]
                        line["schemaErrors"] = errors
                    except MCPError as e:
                        line["error"] = {"code": e.code, "message": e.message}
                    line["seconds"] = time.monotonic() - began
                    emit(line)
            emit({"event": "done"})


def main() -> int:
    opts = parse_args(sys.argv[1:])
    try:
        anyio.run(session, opts)
        return 0
    except Exception as e:  # noqa: BLE001 - reported, then a failing status
        emit({"event": "fatal"})
        traceback.print_exception(e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
