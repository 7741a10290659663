#!/usr/bin/env node
// A small client built on the official TypeScript MCP SDK
// (@modelcontextprotocol/sdk, pinned in peers/package.json, installed into
// peers/node_modules by scripts/install-peers.sh; override the folder with
// MCPGRAPH_PEERS_DIR).
//
// Connects to one MCP server, runs initialize, tools/list and a list of tool
// calls, and prints one JSON object per line on stdout:
//
//   {"event":"initialize","serverInfo":{...},"protocolVersion":...,"capabilities":{...},"instructions":...}
//   {"event":"tools","tools":["name",...]}
//   {"event":"call","name":...,"arguments":{...},"result":{<CallToolResult as on the wire>}}
//   {"event":"call","name":...,"arguments":{...},"error":{"code":...,"message":...}}
//   {"event":"done","status":0}
//
// Usage:
//   ts_client.mjs [--calls JSON|-] [--header 'Name: value']... [--timeout SECS] [--elicit ACTION] [--sample TEXT] --http URL
//   ts_client.mjs [--calls JSON|-] [--cwd DIR] [--timeout SECS] [--elicit ACTION] [--sample TEXT] --stdio COMMAND [ARG...]
//
// --elicit ACTION declares the elicitation capability and answers every
// elicitation/create with ACTION (accept: the content {"name": "Ada
// Lovelace"}; decline; cancel; defaults: accept with no field filled in,
// the capability declared with form.applyDefaults, so that the SDK fills in
// each field's default, SEP-1034); --sample TEXT declares sampling and answers
// every sampling/createMessage with TEXT. Each question is printed as
// {"event":"asked","method":...,"params":{...}}.
//
// --calls is a JSON array of {"name": ..., "arguments": {...}} ("-": read it
// from stdin); default: no calls. Everything after --stdio is the server
// command line.
//
// Exit status: 0 when the connection, initialize, tools/list and every call
// completed at the protocol level (a result with isError: true counts as
// completed); 2 when a call got a JSON-RPC error (or the SDK rejected its
// result); 1 on any other failure (connect, HTTP status, initialize,
// timeout), with {"event":"fatal"} on stdout and the reason on stderr.

import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const peers = process.env.MCPGRAPH_PEERS_DIR ?? path.resolve(here, "../../peers");
const require = createRequire(path.join(peers, "package.json"));

function load(spec) {
  try {
    return require(spec);
  } catch (e) {
    process.stderr.write(
      `ts_client: cannot load ${spec} from ${peers}/node_modules (${e.message}); ` +
        "install the pinned peers with scripts/install-peers.sh\n",
    );
    process.exit(1);
  }
}

const { Client } = load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = load("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = load("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { McpError, ElicitRequestSchema, CreateMessageRequestSchema } = load(
  "@modelcontextprotocol/sdk/types.js",
);

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

function usage(msg) {
  process.stderr.write(`ts_client: ${msg}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const opts = { calls: "[]", headers: {}, cwd: undefined, timeout: 20 };
  for (let i = 0; i < argv.length; ) {
    const a = argv[i];
    if (a === "--http") {
      opts.http = argv[i + 1];
      i += 2;
    } else if (a === "--stdio") {
      opts.stdio = argv.slice(i + 1);
      if (opts.stdio.length === 0) usage("--stdio needs a command");
      break;
    } else if (a === "--calls") {
      opts.calls = argv[i + 1];
      i += 2;
    } else if (a === "--header") {
      const h = argv[i + 1];
      const at = h.indexOf(":");
      if (at < 0) usage(`bad --header ${h}`);
      opts.headers[h.slice(0, at).trim()] = h.slice(at + 1).trim();
      i += 2;
    } else if (a === "--cwd") {
      opts.cwd = argv[i + 1];
      i += 2;
    } else if (a === "--timeout") {
      opts.timeout = Number(argv[i + 1]);
      i += 2;
    } else if (a === "--elicit") {
      opts.elicit = argv[i + 1];
      i += 2;
    } else if (a === "--sample") {
      opts.sample = argv[i + 1];
      i += 2;
    } else {
      usage(`unknown argument ${a}`);
    }
  }
  if ((opts.http === undefined) === (opts.stdio === undefined)) {
    usage("give exactly one of --http URL or --stdio COMMAND...");
  }
  const text = opts.calls === "-" ? readFileSync(0, "utf8") : opts.calls;
  opts.calls = JSON.parse(text);
  if (!Array.isArray(opts.calls)) usage("--calls must be a JSON array");
  return opts;
}

async function run(opts) {
  const capabilities = {};
  if (opts.elicit !== undefined) {
    capabilities.elicitation = opts.elicit === "defaults" ? { form: { applyDefaults: true } } : {};
  }
  if (opts.sample !== undefined) capabilities.sampling = {};
  const client = new Client({ name: "mcpgraph-tests-ts", version: "0.0.0" }, { capabilities });
  if (opts.elicit !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      emit({ event: "asked", method: "elicitation/create", params: request.params });
      switch (opts.elicit) {
        case "accept":
          return { action: "accept", content: { name: "Ada Lovelace" } };
        case "defaults":
          return { action: "accept", content: {} };
        default:
          return { action: opts.elicit };
      }
    });
  }
  if (opts.sample !== undefined) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      emit({ event: "asked", method: "sampling/createMessage", params: request.params });
      return {
        role: "assistant",
        content: { type: "text", text: opts.sample },
        model: "ts-test-model",
        stopReason: "endTurn",
      };
    });
  }
  let transport;
  if (opts.http !== undefined) {
    transport = new StreamableHTTPClientTransport(new URL(opts.http), {
      requestInit: { headers: opts.headers },
    });
  } else {
    const [command, ...args] = opts.stdio;
    transport = new StdioClientTransport({ command, args, cwd: opts.cwd, stderr: "inherit" });
  }
  const reqOpts = { timeout: opts.timeout * 1000 };
  await client.connect(transport, reqOpts);
  emit({
    event: "initialize",
    serverInfo: client.getServerVersion(),
    protocolVersion: transport.protocolVersion ?? null,
    capabilities: client.getServerCapabilities(),
    instructions: client.getInstructions() ?? null,
  });
  const tools = await client.listTools(undefined, reqOpts);
  emit({ event: "tools", tools: tools.tools.map((t) => t.name) });
  let status = 0;
  for (const call of opts.calls) {
    const args = call.arguments ?? {};
    const line = { event: "call", name: call.name, arguments: args };
    try {
      line.result = await client.callTool({ name: call.name, arguments: args }, undefined, reqOpts);
    } catch (e) {
      if (!(e instanceof McpError)) throw e;
      line.error = { code: e.code, message: e.message };
      status = 2;
    }
    emit(line);
  }
  if (transport.terminateSession !== undefined && transport.sessionId !== undefined) {
    await transport.terminateSession();
  }
  await client.close();
  return status;
}

const opts = parseArgs(process.argv.slice(2));
const overall = setTimeout(
  () => {
    emit({ event: "fatal", error: "overall timeout" });
    process.stderr.write("ts_client: overall timeout\n");
    process.exit(1);
  },
  opts.timeout * 1000 * (2 + opts.calls.length),
);
try {
  const status = await run(opts);
  emit({ event: "done", status });
  clearTimeout(overall);
  process.exit(status);
} catch (e) {
  emit({ event: "fatal", error: `${e?.name ?? "Error"}: ${e?.message ?? e}` });
  process.stderr.write(`ts_client: ${e?.stack ?? e}\n`);
  process.exit(1);
}
