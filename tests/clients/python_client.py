#!/usr/bin/env python3
"""A small client built on the official Python MCP SDK (``mcp`` 2.x, pinned in
peers/requirements.txt, installed into peers/.venv by scripts/install-peers.sh).

Connects to one MCP server, runs ``initialize``, ``tools/list`` and a list of
tool calls, and prints one JSON object per line on stdout:

    {"event": "initialize", "serverInfo": {...}, "protocolVersion": ..., "capabilities": {...}, "instructions": ...}
    {"event": "tools", "tools": ["name", ...]}
    {"event": "call", "name": ..., "arguments": {...}, "result": {<CallToolResult as on the wire>}}
    {"event": "call", "name": ..., "arguments": {...}, "error": {"code": ..., "message": ...}}
    {"event": "done"}

Usage:
    python_client.py [--calls JSON|-] [--header 'Name: value']... [--timeout SECS] [--elicit ACTION] [--sample TEXT] --http URL
    python_client.py [--calls JSON|-] [--cwd DIR] [--timeout SECS] [--elicit ACTION] [--sample TEXT] --stdio COMMAND [ARG...]

``--elicit ACTION`` declares the elicitation capability and answers every
``elicitation/create`` with ACTION (``accept``: the content
``{"name": "Ada Lovelace"}``; ``echo``: accept with the question's own message,
``{"name": MESSAGE}``, so each answer says which question it answers;
``decline``; ``cancel``; ``late``: ``accept``, after 8 seconds); ``--roots``
declares roots and answers every ``roots/list`` with one root, ``file:///tmp``;
``--sample TEXT``
declares sampling and answers every ``sampling/createMessage`` with TEXT.
Each question is printed as ``{"event": "asked", "method": ..., "params": {...}}``.

``--modern`` connects with the SDK's high-level ``Client`` (``server/discover``
first: MCP 2026-07-28 when the server speaks it, no session), which answers
``input_required`` results through the same callbacks and retries with the
answers and the echoed ``requestState``; the initialize line then has the
negotiated ``protocolVersion`` only.

``--calls`` is a JSON array of ``{"name": ..., "arguments": {...}}`` (``-``:
read it from stdin); default: no calls. Everything after ``--stdio`` is the
server command line.

Exit status: 0 when the connection, initialize, tools/list and every call
completed at the protocol level (a result with ``isError: true`` counts as
completed); 2 when a call got a JSON-RPC error; 1 on any other failure
(connect, HTTP status, initialize, timeout), with ``{"event": "fatal"}`` on
stdout and the reason on stderr.
"""

from __future__ import annotations

import json
import sys
import traceback

import anyio
from mcp import Client, ClientSession, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, sort_keys=True) + "\n")
    sys.stdout.flush()


def dump(model) -> dict:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def parse_args(argv: list[str]) -> dict:
    opts: dict = {"calls": "[]", "headers": {}, "cwd": None, "timeout": 20.0}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--http":
            opts["http"] = argv[i + 1]
            i += 2
        elif a == "--stdio":
            opts["stdio"] = argv[i + 1 :]
            if not opts["stdio"]:
                raise SystemExit("python_client: --stdio needs a command")
            break
        elif a == "--calls":
            opts["calls"] = argv[i + 1]
            i += 2
        elif a == "--header":
            name, _, value = argv[i + 1].partition(":")
            opts["headers"][name.strip()] = value.strip()
            i += 2
        elif a == "--cwd":
            opts["cwd"] = argv[i + 1]
            i += 2
        elif a == "--timeout":
            opts["timeout"] = float(argv[i + 1])
            i += 2
        elif a == "--modern":
            opts["modern"] = True
            i += 1
        elif a == "--roots":
            opts["roots"] = True
            i += 1
        elif a == "--elicit":
            opts["elicit"] = argv[i + 1]
            i += 2
        elif a == "--sample":
            opts["sample"] = argv[i + 1]
            i += 2
        else:
            raise SystemExit(f"python_client: unknown argument {a!r}\n{__doc__}")
    if ("http" in opts) == ("stdio" in opts):
        raise SystemExit("python_client: give exactly one of --http URL or --stdio COMMAND...")
    calls_text = sys.stdin.read() if opts["calls"] == "-" else opts["calls"]
    opts["calls"] = json.loads(calls_text)
    if not isinstance(opts["calls"], list):
        raise SystemExit("python_client: --calls must be a JSON array")
    return opts


def answering(opts: dict) -> dict:
    """The ClientSession callbacks that --elicit and --sample ask for."""
    callbacks: dict = {}
    if "elicit" in opts:
        action = opts["elicit"]

        async def elicitation_callback(context, params):
            emit({"event": "asked", "method": "elicitation/create", "params": dump(params)})
            if action == "echo":
                return types.ElicitResult(action="accept", content={"name": params.message})
            if action == "late":
                await anyio.sleep(8)
                action_now = "accept"
            else:
                action_now = action
            content = {"name": "Ada Lovelace"} if action_now == "accept" else None
            return types.ElicitResult(action=action_now, content=content)

        callbacks["elicitation_callback"] = elicitation_callback
    if opts.get("roots"):

        async def list_roots_callback(context):
            emit({"event": "asked", "method": "roots/list"})
            return types.ListRootsResult(roots=[types.Root(uri="file:///tmp", name="tmp")])

        callbacks["list_roots_callback"] = list_roots_callback
    if "sample" in opts:
        text = opts["sample"]

        async def sampling_callback(context, params):
            emit({"event": "asked", "method": "sampling/createMessage", "params": dump(params)})
            return types.CreateMessageResult(
                role="assistant",
                content=types.TextContent(type="text", text=text),
                model="python-test-model",
                stop_reason="endTurn",
            )

        callbacks["sampling_callback"] = sampling_callback
    return callbacks


async def run_session(read, write, opts: dict) -> int:
    async with ClientSession(read, write, read_timeout_seconds=opts["timeout"], **answering(opts)) as session:
        init = dump(await session.initialize())
        emit(
            {
                "event": "initialize",
                "serverInfo": init.get("serverInfo"),
                "protocolVersion": init.get("protocolVersion"),
                "capabilities": init.get("capabilities"),
                "instructions": init.get("instructions"),
            }
        )
        return await list_and_call(session, opts)


async def run_modern(opts: dict) -> int:
    """The calls through the high-level Client, which drives input_required rounds."""
    if "http" in opts:
        server = opts["http"]
    else:
        command, *args = opts["stdio"]
        server = StdioServerParameters(command=command, args=args, cwd=opts["cwd"])
    async with Client(server, read_timeout_seconds=opts["timeout"], **answering(opts)) as client:
        emit({"event": "initialize", "protocolVersion": client.session.protocol_version})
        return await list_and_call(client, opts)


async def list_and_call(client, opts: dict) -> int:
    """tools/list, then each call of --calls through `client` (a session or a Client)."""
    status = 0
    tools = await client.list_tools()
    emit({"event": "tools", "tools": [t.name for t in tools.tools]})
    for call in opts["calls"]:
        name = call["name"]
        args = call.get("arguments", {})
        line = {"event": "call", "name": name, "arguments": args}
        try:
            line["result"] = dump(await client.call_tool(name, args))
        except MCPError as e:
            line["error"] = {"code": e.code, "message": e.message}
            status = 2
        emit(line)
    return status


async def main_async(opts: dict) -> int:
    with anyio.fail_after(opts["timeout"] * (2 + len(opts["calls"]))):
        if opts.get("modern"):
            return await run_modern(opts)
        if "http" in opts:
            http = create_mcp_http_client(headers=opts["headers"] or None)
            async with http:
                async with streamable_http_client(opts["http"], http_client=http) as (read, write):
                    return await run_session(read, write, opts)
        command, *args = opts["stdio"]
        params = StdioServerParameters(command=command, args=args, cwd=opts["cwd"])
        async with stdio_client(params) as (read, write):
            return await run_session(read, write, opts)


def describe(exc: BaseException) -> str:
    """One line per leaf exception (the SDK wraps failures in exception groups)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(describe(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


def main() -> int:
    opts = parse_args(sys.argv[1:])
    try:
        status = anyio.run(main_async, opts)
    except BaseException as e:  # noqa: BLE001 - report every failure the same way
        if isinstance(e, SystemExit):
            raise
        emit({"event": "fatal", "error": describe(e)})
        traceback.print_exc(file=sys.stderr)
        return 1
    emit({"event": "done", "status": status})
    return status


if __name__ == "__main__":
    sys.exit(main())
