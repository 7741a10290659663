#!/usr/bin/env bash
# `mcpgraph new` end to end: a new crate with the starter graph, depending
# on this checkout (the one the CLI was built from, by default), builds
# and answers `call` and `--version`; then again without default features
# (stdio only). With `--all`, also with `http-client` alone (no TLS, no
# HTTP serving): a third build of the stack, about 100 s on 2 cores, which
# the test run (scripts/test.sh) leaves out to stay within its time.
#
#   scripts/starter-check.sh          # default features, then stdio only
#   scripts/starter-check.sh --all    # ... then http-client without tls
#
# It builds in the workspace's target directory with the workspace's
# profile settings. The starter's manifest unifies features as `resolver =
# "1"` does (as a user's crate gets it), so even its default build
# compiles about a hundred packages of the build stage again, with other
# features.
set -euo pipefail
case "${1:-}" in
    "") all=0 ;;
    --all) all=1 ;;
    *) echo "usage: scripts/starter-check.sh [--all]" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# No `--mcpgraph-path`: a CLI built from this checkout points the crate at
# it (canonical: `new` resolves symbolic links).
checkout="$(cd "$root" && pwd -P)"
said="$("$target/debug/mcpgraph" new "$work/starter_check" --own-target 2>&1 >/dev/null)"
[[ "$said" == *"depending on the mcpgraph checkout this command was built from, $checkout "* ]] \
    || { echo "starter-check: new said $said" >&2; exit 1; }
cd "$work/starter_check"
grep -qxF "mcpgraph = { path = \"$checkout/mcpgraph\" }" Cargo.toml \
    || { echo "starter-check: Cargo.toml does not depend on $checkout/mcpgraph" >&2; exit 1; }
# The workspace's profile settings, in the crate's own cargo config so that
# the build `mcpgraph test` makes (below) is this one again.
mkdir -p .cargo
cat > .cargo/config.toml <<'TOML'
[profile.dev]
debug = "line-tables-only"
[profile.dev.package."*"]
debug = false
[profile.dev.package.jsonata-core]
opt-level = 2
[profile.dev.package.datalogic-rs]
opt-level = 2
TOML
build() {
    CARGO_TARGET_DIR="$target" cargo build --quiet
}
build
# Its test cases: `mcpgraph test` builds the crate (nothing left to do) and
# runs them; `cargo test` runs them through graph_tests!.
report="$(CARGO_TARGET_DIR="$target" "$target/debug/mcpgraph" test -- --json)"
[[ "$report" == *'"passed":1,"failed":0'* ]] \
    || { echo "starter-check: mcpgraph test gave $report" >&2; exit 1; }
CARGO_TARGET_DIR="$target" cargo test --quiet 2>&1 | grep -q "graph_tests::greets_by_name ... ok\|1 passed" \
    || { echo "starter-check: cargo test did not run the starter's case" >&2; exit 1; }
echo "starter-check: mcpgraph test and cargo test pass the starter's case"
got="$("$target/debug/starter_check" call greet '{"name": "Ada"}')"
want='{"greeting":"Hello, Ada!"}'
[[ "$got" == "$want" ]] || { echo "starter-check: call greet gave $got, want $want" >&2; exit 1; }
version="$("$target/debug/starter_check" --version)"
[[ "$version" == "starter_check 0.1.0 (mcpgraph "* ]] || { echo "starter-check: --version gave $version" >&2; exit 1; }
echo "starter-check: the starter crate builds and answers: $got"

# The test entry points (the runtime's `testing` feature: the differential
# runner's harness, the fuzz targets' entry points, the standalone
# evaluator) are not in a user's binary. The differential runner, built
# with them, shows that the symbols are there to be found.
hooks='mcpgraph_runtime::exec::standalone::|mcpgraph_(runtime|downstream)::fuzzing::|evaluate_standalone'
# (grep reads all of nm's output: under pipefail, `grep -q` quitting early
# would fail the pipeline with nm's SIGPIPE.)
found="$(nm -C "$target/debug/differential" | grep -Ec "$hooks" || true)"
[[ "$found" -gt 0 ]] \
    || { echo "starter-check: no test entry point in the differential runner either: the check proves nothing" >&2; exit 1; }
leaked="$(nm -C "$target/debug/starter_check" | grep -E "$hooks" || true)"
if [[ -n "$leaked" ]]; then
    echo "starter-check: test entry points in the starter's binary:" >&2
    echo "$leaked" | head -3 >&2
    exit 1
fi
echo "starter-check: no test entry point in the starter's binary"

# The same crate without mcpgraph's default features: stdio only, serving
# and calling. No HTTP stack in the tree, the starter tool still answers,
# and what needs a missing feature says which: `serve --http`, an `http`
# server in a `--mcp` file, one written in the graph (at its line).
sed -i 's|^mcpgraph = { path = "\(.*\)" }$|mcpgraph = { path = "\1", default-features = false }|' Cargo.toml
grep -q 'default-features = false }' Cargo.toml || { echo "starter-check: Cargo.toml not as expected" >&2; exit 1; }
# `cargo tree -i` fails with this message when no package of the tree is
# the one named; any other outcome (found, another error) fails the check.
not_in_tree() {
    local tree
    tree="$(cargo tree --quiet -e normal -i "$1" 2>&1 || true)"
    [[ "$tree" == *"did not match any packages"* ]] ||
        { echo "starter-check: $1 is in the tree $2: $tree" >&2; exit 1; }
}
for package in rustls reqwest hyper sse-stream oauth2 jsonwebtoken mcpgraph-graph-tests; do
    not_in_tree "$package" "without default features"
done
build
got="$("$target/debug/starter_check" call greet '{"name": "Ada"}')"
[[ "$got" == "$want" ]] || { echo "starter-check: stdio only, call greet gave $got" >&2; exit 1; }
if http_serve="$("$target/debug/starter_check" serve --http 127.0.0.1:0 </dev/null 2>&1)"; then
    echo "starter-check: stdio only, serve --http succeeded: $http_serve" >&2
    exit 1
fi
[[ "$http_serve" == *"\`serve --http\` needs mcpgraph's \`http-server\` feature"* ]] ||
    { echo "starter-check: stdio only, serve --http gave: $http_serve" >&2; exit 1; }
# Without `graph-tests` (no graph tests linked): `test` says which feature
# it needs.
if test_out="$("$target/debug/starter_check" test 2>&1)"; then
    echo "starter-check: stdio only, test succeeded: $test_out" >&2
    exit 1
fi
[[ "$test_out" == *"\`test\` needs mcpgraph's \`graph-tests\` feature"* ]] ||
    { echo "starter-check: stdio only, test gave: $test_out" >&2; exit 1; }
if "$target/debug/starter_check" serve --help | grep -q -- '--http'; then
    echo "starter-check: stdio only, serve --help offers --http" >&2
    exit 1
fi
echo '{"mcpServers": {"remote": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}' > "$work/remote.json"
if mcp_error="$("$target/debug/starter_check" --mcp "$work/remote.json" call greet '{"name": "Ada"}' 2>&1)"; then
    echo "starter-check: stdio only, an http server in --mcp was accepted: $mcp_error" >&2
    exit 1
fi
[[ "$mcp_error" == *"server \`remote\`: a \`type: http\` server needs mcpgraph's \`http-client\` feature"* ]] ||
    { echo "starter-check: stdio only, an http server in --mcp gave: $mcp_error" >&2; exit 1; }
cat >> graph.yaml <<'YAML'
  - name: "remote_echo"
    description: "Calls the remote server's echo"
    inputSchema: { type: object }
    nodes:
      - { id: entry, type: entry, next: call }
      - { id: call, type: mcp, server: remote, tool: echo, args: {}, next: exit }
      - { id: exit, type: exit }

mcpServers:
  remote:
    type: http
    url: "${STARTER_REMOTE_URL}"
YAML
if build_log="$(build 2>&1)"; then
    echo "starter-check: stdio only, a graph with an http server built" >&2
    exit 1
fi
line="$(grep -n '^  remote:$' graph.yaml | cut -d: -f1)"
[[ "$build_log" == *"graph.yaml:$line:3: server \`remote\` is a \`type: http\` server, and calling HTTP servers needs mcpgraph's \`http-client\` feature"* ]] ||
    { echo "starter-check: stdio only, the http server's build failed otherwise:" >&2; echo "$build_log" >&2; exit 1; }
echo "starter-check: stdio only: no HTTP stack and no graph tests, the tool answers, serve --http, test, an http --mcp server and an http graph server refused naming the feature"

if [[ "$all" == 0 ]]; then
    rm -f "$target/debug/starter_check" "$target/debug/starter_check.d"
    echo "starter-check: http-client without tls not built (scripts/starter-check.sh --all builds it)"
    exit 0
fi

# With `http-client` alone: no TLS in the tree, an https:// URL given at
# run time fails its call with the reason, one written in the graph fails
# the build.
sed -i 's|default-features = false }$|default-features = false, features = ["http-client"] }|' Cargo.toml
grep -q 'features = \["http-client"\] }' Cargo.toml || { echo "starter-check: Cargo.toml not as expected" >&2; exit 1; }
not_in_tree rustls "without the tls feature"
build
got="$("$target/debug/starter_check" call greet '{"name": "Ada"}')"
[[ "$got" == "$want" ]] || { echo "starter-check: without tls, call greet gave $got" >&2; exit 1; }
call_remote() {
    STARTER_REMOTE_URL="$1" "$target/debug/starter_check" call remote_echo '{}' 2>&1 && {
        echo "starter-check: remote_echo succeeded against $1" >&2
        exit 1
    }
}
https_error="$(call_remote https://127.0.0.1:9/mcp || true)"
[[ "$https_error" == *"node \`call\`"*"built without mcpgraph's \`tls\` feature"* ]] ||
    { echo "starter-check: without tls, an https:// call gave: $https_error" >&2; exit 1; }
http_error="$(call_remote http://127.0.0.1:9/mcp || true)"
[[ "$http_error" == *"Connection refused"* && "$http_error" != *"tls"* ]] ||
    { echo "starter-check: without tls, an http:// call gave: $http_error" >&2; exit 1; }
sed -i 's|url: "${STARTER_REMOTE_URL}"|url: "https://mcp.example.com/mcp"|' graph.yaml
if build_log="$(build 2>&1)"; then
    echo "starter-check: a graph with an https:// server built without tls" >&2
    exit 1
fi
[[ "$build_log" == *"graph.yaml:"*": server \`remote\` calls https://mcp.example.com/mcp, and https:// needs mcpgraph's \`tls\` feature"* ]] ||
    { echo "starter-check: the https:// build failed otherwise:" >&2; echo "$build_log" >&2; exit 1; }
rm -f "$target/debug/starter_check" "$target/debug/starter_check.d"
echo "starter-check: http-client without tls: no rustls, the tool answers, https:// refused at run time and at build time"
